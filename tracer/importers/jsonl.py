"""Reading a JSON-lines log the way a crash leaves it: tolerant, and honest about what it dropped.

Claude Code appends one record per line while it runs, and claude-trace appends one request/response
pair per line, so a session that was killed can end mid-line. That torn last line is dropped with a
note. A broken line in the middle is skipped and counted, never fatal; only a file with nothing
readable at all is an error (``UserError``, ``file:line: what``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.importers.output import ImportReport

_raw_decode = json.JSONDecoder().raw_decode

Record = tuple[int, dict[str, Any]]
"""A parsed line: its 1-based line number and its object."""


def read_jsonl(path: str | Path, report: ImportReport) -> list[Record]:
    """Every line of ``path`` that is a JSON object, with its line number."""
    path = Path(path)
    if not path.exists():
        raise UserError("no such file", path)
    if path.is_dir():
        raise UserError("is a directory, not a JSON-lines log", path)
    data = path.read_bytes()
    if not data or data.isspace():  # (data.strip() would copy the whole file to find out)
        raise UserError("empty file", path)
    # Split as bytes, then each line decoded to str on its own (json.loads on bytes would sniff
    # the encoding first). Decoding the whole file at once is slower: one emoji or Chinese
    # character anywhere makes the whole text, and every line cut from it, a wide string, while
    # most lines are plain ASCII. A b"\n" is never part of a multi-byte UTF-8 character, so
    # the lines and any replaced bytes are the same either way.
    lines = [raw.decode("utf-8", errors="replace") for raw in data.split(b"\n")]
    torn = not data.endswith(b"\n")
    records, first_bad = parse_lines(lines, 1, report, path=path, torn=torn)
    if first_bad is not None:
        report.notes.append(f"{path}:{first_bad}: not a JSON object (skipped, with any others)")
    if not records:
        raise UserError("no JSON object on any line: not a JSON-lines log", path, first_bad or 1)
    if records[0][1].get("format") == "tracer":
        raise UserError("this is already a tracer trace; open it with tracer show/replay",
                        path, records[0][0])
    return records


def parse_lines(lines: list[str], first_number: int, report: ImportReport, *,
                path: str | Path = "", torn: bool = False) -> tuple[list[Record], int | None]:
    """Parse complete lines (numbered from ``first_number``): the one place a JSON line becomes
    a record, shared by whole-file imports and ``--follow``. Returns the records and the number
    of the first line that was not a JSON object (skipped and counted in ``report``).

    With ``torn`` the last line may be cut off: it is dropped with a note, not counted as bad.
    """
    records: list[Record] = []
    first_bad: int | None = None
    last = first_number + len(lines) - 1
    for number, raw in enumerate(lines, start=first_number):
        # The scanner is called directly: json.loads would also skip whitespace around the
        # object and check that nothing follows it (two regex matches and three calls per line,
        # an eighth of the parse). A line the scanner does not read to its end (blank, padded
        # with whitespace or "\r", broken) goes through json.loads, which decides as before.
        try:
            obj, end = _raw_decode(raw)
        except ValueError:
            end = -1
        if end != len(raw):
            if not raw or raw.isspace():
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                if torn and number == last:
                    report.notes.append(f"{path}:{number}: the last line is cut off; kept the "
                                        f"{len(records)} complete lines before it")
                    report.skip("torn last line")
                    continue
                first_bad = first_bad or number
                report.skip("unreadable lines")
                continue
        if not isinstance(obj, dict):
            first_bad = first_bad or number
            report.skip("unreadable lines")
            continue
        records.append((number, obj))
    return records, first_bad
