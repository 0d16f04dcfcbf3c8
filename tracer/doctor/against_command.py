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

from tracer.doctor.against import Comparison, compare_requests
from tracer.errors import UserError
from tracer.printable import printable, printable_json


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


def _bodies(path: Path) -> list[dict[str, Any]]:
    from tracer.trace.reader import TraceReader
    from tracer.trace.requests import rebuild_requests

    reader = TraceReader(path)
    try:
        return [request.body for request in rebuild_requests(reader)]
    finally:
        reader.close()


def rebuilt_bodies(path: Path) -> list[dict[str, Any]]:
    """The requests of a trace, or of a transcript imported on the spot."""
    if _is_trace(path):
        return _bodies(path)
    from tracer.importers.claude_code import import_claude_code

    with tempfile.TemporaryDirectory(prefix="tracer-against-") as scratch:
        imported = Path(scratch) / "imported.trace.jsonl"
        import_claude_code(path, imported)
        return _bodies(imported)


def run_against(args: argparse.Namespace) -> int:
    wire_path: Path = args.against
    if not _is_trace(wire_path):
        raise UserError("not a tracer trace (give the trace `tracer record --claude-code` wrote)",
                        wire_path, 1)  # fmt: skip
    comparison = compare_requests(rebuilt_bodies(args.trace), _bodies(wire_path))
    if args.json:
        listed = {"trace": str(args.trace), "against": str(wire_path), **comparison.to_dict()}
        print(printable_json(json.dumps(listed, ensure_ascii=False, indent=2)))
    else:
        from tracer.doctor.command import _default_lang

        for line in report_lines(comparison, args.trace, wire_path, args.lang or _default_lang()):
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
            lines.append("记录文件里没有、因而不比较的内容：")
    else:
        lines = [f"compared: {c.wire_requests} requests sent ({wire}), "
                 f"{c.rebuilt_requests} rebuilt ({trace})"]  # fmt: skip
        if c.unknowable:
            lines.append("not in a transcript, so not compared:")
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
