"""``tracer doctor TRACE --against WIRE_TRACE``: the import's rebuild held against the wire.

``TRACE`` is a trace imported from a Claude Code transcript, or the transcript itself (then it
is imported here, into a scratch folder, as ``tracer import claude-code`` would); ``WIRE_TRACE``
is what ``tracer record --claude-code`` captured of the same session. Both sides' requests are
rebuilt from their events (:mod:`tracer.trace.requests`) and compared by
:mod:`tracer.doctor.against`, which does the work; this module reads, prints and sets the exit
status: 0 when they agree apart from what a transcript cannot know (listed, not counted), 1 on
any difference, 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from tracer.doctor.against import compare_requests
from tracer.doctor.against_findings import Comparison
from tracer.errors import UserError
from tracer.text.printable import printable, printable_json


def _is_trace(path: Path) -> bool:
    """Whether ``path`` starts with a tracer header (else it is taken for a transcript)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 20)
    except OSError as exc:
        raise UserError(f"cannot read: {exc.strerror}", path) from None
    try:
        header = json.loads(first)
    except ValueError:
        return False
    return isinstance(header, dict) and header.get("format") == "tracer"


def _requests(path: Path) -> tuple[list[dict[str, Any]], list[str | None]]:
    """Each request body of a trace, and the id of the message that answered it (if any)."""
    from tracer.trace.events import ResponseReceived
    from tracer.trace.reader import TraceReader
    from tracer.trace.requests import rebuild_requests

    reader = TraceReader(path)
    try:
        events = list(reader)
    finally:
        reader.close()
    answers: list[str | None] = []
    for event in events:
        if event.kind == "request":
            answers.append(None)
        elif isinstance(event, ResponseReceived) and answers and answers[-1] is None:
            answers[-1] = event.message_id
    return [request.body for request in rebuild_requests(events)], answers


def rebuilt_requests(path: Path) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The requests of a trace, or of a transcript imported on the spot, with their answers."""
    if _is_trace(path):
        return _requests(path)
    from tracer.importers.claude_code.importer import import_claude_code

    with tempfile.TemporaryDirectory(prefix="tracer-against-") as scratch:
        imported = Path(scratch) / "imported.trace.jsonl"
        import_claude_code(path, imported)
        return _requests(imported)


def compare_files(trace: Path, wire: Path) -> Comparison:
    """:func:`~tracer.doctor.against.compare_requests` of the two files' requests."""
    if not _is_trace(wire):
        raise UserError("not a tracer trace (give the trace `tracer record --claude-code` wrote)",
                        wire, 1)  # fmt: skip
    built, built_answers = rebuilt_requests(trace)
    sent, sent_answers = _requests(wire)
    return compare_requests(built, sent, rebuilt_answers=built_answers, wire_answers=sent_answers)


def run_against(args: argparse.Namespace, lang: str) -> int:
    """The ``--against`` report (``lang`` as the doctor chose it); the exit status."""
    wire_path: Path = args.against
    comparison = compare_files(args.trace, wire_path)
    if args.json:
        listed = {"trace": str(args.trace), "against": str(wire_path), **comparison.to_dict()}
        print(printable_json(json.dumps(listed, ensure_ascii=False, indent=2)))
    else:
        for line in report_lines(comparison, args.trace, wire_path, lang):
            print(printable(line))
    return 1 if comparison.differences else 0


def report_lines(comparison: Comparison, trace: Path, wire: Path, lang: str) -> list[str]:
    """The comparison as the terminal shows it: what was left out, each difference, a summary."""
    zh = lang == "zh"
    c = comparison
    if zh:
        lines = [
            f"比较：{wire}发出的{c.wire_requests}次请求，{trace}重建的{c.rebuilt_requests}次请求"
        ]
        if c.unknowable:
            lines.append("只列出、不比较的内容（记录文件里没有，或不在这次线上）：")
    else:
        lines = [f"compared: {c.wire_requests} requests sent ({wire}), "
                 f"{c.rebuilt_requests} rebuilt ({trace})"]  # fmt: skip
        if c.unknowable:
            lines.append("named, not compared (not in a transcript, or not on this wire):")
    lines += [f"  - {u.message_zh if zh else u.message}" for u in c.unknowable]
    for d in c.differences:
        lines.append(f"{'不同' if zh else 'differs'}  {d.kind}")
        lines.append(f"         {d.message_zh if zh else d.message}")
    n = len(c.differences)
    if zh:
        lines.append(f"{trace}：与发出的请求有{n}处不同" if n else f"{trace}：与发出的请求一致")
    elif n:
        lines.append(f"{trace}: {n} difference{'s' if n != 1 else ''} from the requests sent")
    else:
        lines.append(f"{trace}: agrees with the requests sent")
    return lines
