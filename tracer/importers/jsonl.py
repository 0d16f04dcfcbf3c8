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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.importers.output import ImportReport
from tracer.untrusted import (
    MAX_LINE,
    MISS,
    deep_lines,
    no_constant,
    no_long_digits,
    quick_loads,
    read_bytes,
    vet,
)
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
    lines = data.split(b"\n")
    torn = not data.endswith(b"\n")
    records, first_bad = parse_lines(
        lines,
        1,
        report,
        path=path,
        torn=torn,
        shape=shape,
        digits_checked=no_long_digits(data),
        deep=deep_lines(data),
    )
    if not records:
        raise UserError("no JSON object on any line: not a JSON-lines log", path, first_bad or 1)
    if records[0][1].get("format") == "tracer":
        raise UserError(
            "this is already a tracer trace; open it with tracer show/replay", path, records[0][0]
        )
    return records


def parse_lines(
    lines: list[str] | list[bytes],
    first_number: int,
    report: ImportReport,
    *,
    path: str | Path = "",
    torn: bool = False,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
    digits_checked: bool = False,
    deep: set[int] | None = None,
) -> tuple[list[Record], int | None]:
    """Parse complete lines (numbered from ``first_number``): the one place a JSON line becomes
    a record, shared by whole-file imports and ``--follow``. Returns the records and the number
    of the first line that was not a JSON object of a sound ``shape`` (skipped and counted in
    ``report``, with a note naming why).

    With ``torn`` the last line may be cut off: it is dropped with a note, not counted as bad.
    ``digits_checked`` and ``deep`` are what the whole file's passes found
    (:func:`~tracer.untrusted.no_long_digits`, :func:`~tracer.untrusted.deep_lines`: indexes
    into ``lines``), so no line is searched again.
    """
    records: list[Record] = []
    first_bad: int | None = None
    first_why = "not a JSON object"
    last = first_number + len(lines) - 1
    for number, raw in enumerate(lines, start=first_number):
        if not raw or raw.isspace():
            continue
        shallow = None if deep is None else number - first_number not in deep
        obj = quick_loads(raw, digits_checked, shallow) if isinstance(raw, bytes) else MISS
        if obj is MISS:
            obj = _fast(raw, path, number)
        if obj is None or obj is MISS:  # not ordinary: tracer.untrusted decides, and says why
            try:
                obj = loads_line(raw, path, number)
            except UserError as exc:
                if torn and number == last:
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
        problem = "not a JSON object" if not isinstance(obj, dict) else shape and shape(obj)
        if problem:
            if first_bad is None:
                first_bad, first_why = number, problem
            report.skip("unreadable lines")
            continue
        records.append((number, obj))
    if first_bad is not None:
        report.notes.append(f"{path}:{first_bad}: {first_why} (skipped, with any others)")
    return records, first_bad


def _fast(raw: str | bytes, path: str | Path, number: int) -> Any:
    """An ordinary line parsed the quick way, or None to send it through the careful one.

    Most of an import's time should be JSON parsing, so the common case is cut short: the
    bytes are decoded strictly on their own (one emoji elsewhere in the file does not make every
    line a wide string), and the C scanner is called directly (json.loads would also match
    whitespace around the object and check that nothing follows it). Anything unusual, such as
    a bad byte, padding, a "\r", a broken or over-long line, goes back to
    :func:`tracer.untrusted.loads`, which reads it the same way and names the problem.
    """
    if len(raw) > MAX_LINE:
        return None
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        obj, end = _raw_decode(text)
        if end != len(text):
            return None
        vet(obj, text, path, number)
    except (ValueError, RecursionError, UserError):
        return None
    return obj
