"""Reading a JSON-lines log the way a crash leaves it: tolerant, and honest about what it dropped.

Claude Code appends one record per line while it runs, and claude-trace appends one request/response
pair per line, so a session that was killed can end mid-line. That torn last line is dropped with a
note. A broken line in the middle is skipped and counted, never fatal; only a file with nothing
readable at all is an error (``UserError``, ``file:line: what``).

The bytes come through :mod:`tracer.untrusted` (a regular file only; each line bounded, strictly
decoded, not nested too deep, without lone surrogates), and each object is then asked about its
shape (:mod:`tracer.importers.shapes`), so what the importers get is what they were written for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.importers.output import ImportReport
from tracer.untrusted import MAX_LINE, MISS, no_constant, quick_loads, read_bytes, split_lines, vet
from tracer.untrusted import loads as loads_line

#: The C scanner, built once: NaN and Infinity are refused, as :func:`tracer.untrusted.loads` does.
_raw_decode = json.JSONDecoder(parse_constant=no_constant).raw_decode

Record = tuple[int, dict[str, Any]]
"""A parsed line: its 1-based line number and its object."""


def read_jsonl(
    path: str | Path,
    report: ImportReport,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[Record]:
    """Every line of ``path`` that is a JSON object of a sound ``shape``, with its line number."""
    path = Path(path)
    data = read_bytes(path, "a JSON-lines log")
    if not data or data.isspace():  # not data.strip(): that copies the whole file
        raise UserError("empty file", path)
    lines = split_lines(data)
    records, first_bad = parse_lines(
        lines.lines,
        1,
        report,
        path=path,
        torn=not data.endswith(b"\n"),
        shape=shape,
        long_digits=lines.long_digits,
        deep=lines.deep,
    )
    if not records:
        raise UserError("no JSON object on any line: not a JSON-lines log", path, first_bad or 1)
    if records[0][1].get("format") == "tracer":
        raise UserError(
            "this is already a tracer trace; open it with tracer show/replay", path, records[0][0]
        )
    return records


def parse_lines(
    lines: Sequence[str] | Sequence[bytes] | Sequence[memoryview],
    first_number: int,
    report: ImportReport,
    *,
    path: str | Path = "",
    torn: bool = False,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
    long_digits: set[int] | None = None,
    deep: set[int] | None = None,
) -> tuple[list[Record], int | None]:
    """Parse complete lines (numbered from ``first_number``): the one place a JSON line becomes
    a record, shared by whole-file imports and ``--follow``. Returns the records and the number
    of the first line that was not a JSON object of a sound ``shape`` (skipped and counted in
    ``report``, with a note naming why). Blank lines are passed over.

    With ``torn`` the last line may be cut off: it is dropped with a note, not counted as bad.
    ``long_digits`` and ``deep`` are what one pass over the whole file found
    (:func:`~tracer.untrusted.split_lines`: indexes into ``lines``), so no line is searched
    again; without them each line is searched on its own.
    """
    records: list[Record] = []
    first_bad: int | None = None
    first_why = "not a JSON object"
    last = len(lines) - 1
    checked = long_digits is not None
    for index, raw in enumerate(lines):
        # The common case first: orjson reads the line and nothing about it is unusual. A
        # blank line, a bad one or a rare one (a run of 19 digits, many brackets) comes out
        # as MISS and is looked at below; so an ordinary line costs one call and no copy.
        if isinstance(raw, str):
            obj = _fast(raw, path, first_number + index)
        elif checked and index in long_digits:
            obj = MISS
        else:
            obj = quick_loads(raw, checked, None if deep is None else index not in deep)
        if obj is MISS or obj is None:
            if isinstance(raw, memoryview):
                raw = raw.tobytes()
            if not raw or raw.isspace():
                continue
            number = first_number + index
            try:  # not ordinary: tracer.untrusted reads it the careful way, and says why
                obj = loads_line(raw, path, number)
            except UserError as exc:
                if torn and index == last:
                    report.notes.append(
                        f"{path}:{number}: the last line is cut off; kept the "
                        f"{len(records)} complete lines before it"
                    )
                    report.skip("torn last line")
                    continue
                if first_bad is None:
                    first_bad, first_why = number, exc.message
                report.skip("unreadable lines")
                continue
        problem = "not a JSON object" if type(obj) is not dict else shape and shape(obj)
        if problem:
            if first_bad is None:
                first_bad, first_why = first_number + index, problem
            report.skip("unreadable lines")
            continue
        records.append((first_number + index, obj))
    if first_bad is not None:
        report.notes.append(f"{path}:{first_bad}: {first_why} (skipped, with any others)")
    return records, first_bad


def _fast(text: str, path: str | Path, number: int) -> Any:
    """An ordinary line of text parsed the quick way, or None to send it the careful way.

    ``--follow`` hands over text lines. The C scanner is called directly (json.loads would
    also match whitespace around the object and check that nothing follows it). Anything
    unusual, such as padding, a "\r", a broken or over-long line, goes back to
    :func:`tracer.untrusted.loads`, which reads it the same way and names the problem.
    """
    if len(text) > MAX_LINE:
        return None
    try:
        obj, end = _raw_decode(text)
        if end != len(text):
            return None
        vet(obj, text, path, number)
    except (ValueError, RecursionError, UserError):
        return None
    return obj
