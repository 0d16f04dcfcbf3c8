"""``tracer doctor TRACE``: check a trace for the chapter's common errors.

Prints each finding (rule, severity, step, turn, one line on what went wrong, and the guide's
"how to check" hint, all in the chosen language: ``--lang zh`` prints Chinese throughout), then
a one-line summary. Exit status: 0 when there is
no error (warnings are still printed), 1 when there is at least one error (or, with ``--strict``,
any finding at all), 2 when the trace cannot be read (one line on stderr, as for every command).

``--json`` prints the findings as a JSON list instead, in step order. Each finding is an object::

    {"rule": "result-not-returned",          # one of the rule ids below
     "severity": "error",                    # "error" or "warning"
     "step": 13,                             # step number, as `tracer show` numbers steps
     "turn": 2,
     "message": "request 2 resends ...",     # one line, English
     "message_zh": "第2次请求重发了 ...",    # the same line in Chinese
     "hint": {"zh": "...", "en": "..."}}     # the guide's "how to check" text

(:data:`tracer.doctor.FINDINGS_JSON_SCHEMA` is the JSON Schema of that list.)

This module is imported by ``tracer --help``; it imports nothing heavy at the top.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tracer.arguments import whole_number
from tracer.doctor.finding import SEVERITY_WORDS
from tracer.text.cells import ljust
from tracer.text.printable import printable, printable_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.doctor.finding import Finding

RULE_IDS = (
    "result-not-returned",
    "tool-use-id-mismatch",
    "malformed-result",
    "loop-not-ending",
    "max-turns",
    "api-invariants",
)

_EPILOG = (
    """\
rules: """
    + ", ".join(RULE_IDS)
    + """

exit status: 0 no errors (warnings are still printed), 1 at least one error
(--strict: any finding), 2 the trace cannot be read.

--against WIRE_TRACE compares instead: what a transcript cannot hold (the system
prompt, the tools list, the other parameters, <system-reminder> texts, cache_control
markers) is listed, not counted; any other difference exits 1 (--json: an object with
wire_requests, rebuilt_requests, unknowable and differences).

--json prints a list of findings, each an object with
  rule      the rule id
  severity  "error" or "warning"
  step      the step number, as `tracer show` numbers steps
  turn      the loop turn
  message   one line, in English
  message_zh the same line, in Chinese
  hint      {"zh": ..., "en": ...}: how to check it, from the chapter's guide
"""
)


def _default_lang() -> str:
    for name in ("TRACER_LANG", "LC_ALL", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check a trace for the chapter's common errors",
        description="Check a trace for the common errors of chapter 12: a result that never "
        "reached the model, a tool_use_id mismatch, a malformed result, a loop that "
        "does not end, max turns, and the API's own rules for a request.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", type=Path, metavar="TRACE")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--strict", action="store_true", help="warnings count as errors for the exit status"
    )
    parser.add_argument(
        "--lang",
        choices=("zh", "en"),
        default=None,
        help="language of the report (default: from TRACER_LANG or LANG)",
    )
    parser.add_argument(
        "--repeat",
        type=whole_number(2),
        default=3,
        metavar="N",
        help="the same tool call N times in a row is a loop (default 3)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        metavar="WIRE_TRACE",
        help="compare TRACE (imported from a Claude Code transcript, or the transcript itself) "
        "with the requests `tracer record --claude-code` captured, message by message, instead "
        "of checking it; exit 1 on any difference (--strict and --repeat do not apply)",
    )
    parser.set_defaults(func=run)


INCOMPLETE = "the recorder stopped before the session ended (no terminal event)"


def run(args: argparse.Namespace) -> int:
    if getattr(args, "against", None) is not None:
        from tracer.doctor.against_command import run_against

        return run_against(args, args.lang or _default_lang())
    from tracer.doctor import run_doctor
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    try:
        findings = run_doctor(reader, repeat_limit=args.repeat)
        notice = reader.torn_notice()
        complete = reader.complete
    finally:
        reader.close()
    if notice:
        print(printable(f"note: {args.trace}: {notice}"), file=sys.stderr)
    # Not a finding of the chapter's table (the JSON list stays what it was): the file itself
    # stops short, so every check above saw only part of the session.
    unended = f"warning: {args.trace}: {INCOMPLETE}" if not complete else None
    if args.json:
        listed = json.dumps([f.to_dict() for f in findings], ensure_ascii=False, indent=2)
        print(printable_json(listed))  # the same JSON, with C1 and bidi controls escaped
        if unended:
            print(printable(unended), file=sys.stderr)
    else:
        lang = args.lang or _default_lang()
        for line in report_lines(findings, lang):  # findings quote the trace
            print(printable(line))
        if unended:
            print(printable(unended))
        print(printable(summary(args.trace, findings, lang)))
    errors = sum(f.severity == "error" for f in findings)
    if errors or (args.strict and findings):
        return 1
    return 0


def report_lines(findings: list[Finding], lang: str) -> list[str]:
    """Each finding as two or three lines: what, where, and how to check it."""
    zh = lang == "zh"
    lines: list[str] = []
    for f in findings:
        if zh:
            severity = SEVERITY_WORDS.get(f.severity, {}).get("zh", f.severity)
            # Before the first turn the loop is still being set up: there is no 第0轮.
            turn = f"第{f.turn}轮" if f.turn else "准备"
            # Padded by cells, as the terminal draws them: 错误 is two characters, four cells.
            lines.append(f"{ljust(severity, 7)}  {f.rule:<21} 第{f.step}步，{turn}")
        else:
            turn = f"turn {f.turn}" if f.turn else "set-up"
            lines.append(f"{f.severity:<7}  {f.rule:<21} step {f.step}, {turn}")
        message = f.text(lang) if hasattr(f, "text") else f.message
        lines.append(f"         {message}")
        hint = f.hint.get(lang) if f.hint else None
        if hint:
            lines.append(f"         检查：{hint}" if zh else f"         check: {hint}")
    return lines


def summary(trace: Path, findings: list[Finding], lang: str = "en") -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    if lang == "zh":
        if not findings:
            return f"{trace}：没有发现问题"
        return f"{trace}：{errors}个错误，{warnings}个警告"
    if not findings:
        return f"{trace}: no findings"
    return (
        f"{trace}: {errors} error{'s' if errors != 1 else ''}, "
        f"{warnings} warning{'s' if warnings != 1 else ''}"
    )
