"""Reading a JSON-lines log the way a crash leaves it: tolerant, and honest about what it dropped.

Claude Code appends one record per line while it runs, and claude-trace appends one request/response
pair per line, so a session that was killed can end mid-line. That torn last line is dropped with a
note. A broken line in the middle is skipped and counted, never fatal; only a file with nothing
readable at all is an error (``UserError``, ``file:line: what``).

The bytes come through :mod:`tracer.files.untrusted` (a regular file only; each line bounded,
strictly decoded, not nested too deep, without lone surrogates), and each object is then asked about
its shape (:mod:`tracer.importers.shapes`), so what the importers get is what they were written for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tracer.errors import UserError
from tracer.files.pathnames import pathname
from tracer.files.untrusted import (
    MAX_LINE,
    MISS,
    UTF8_BOM,
    quick_loads,
    read_pieces,
    split_lines,
)
from tracer.files.untrusted import loads as loads_line
from tracer.importers.output import ImportReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name

Record = tuple[int, dict[str, "Any"]]
"""A parsed line: its 1-based line number and its object. (``Any`` quoted: an alias is run, and
``typing`` is not imported at run time, see :mod:`tracer.cli.console`.)"""


#: How much of a file is read, split and parsed at a time: a few lines' worth, so that each piece
#: is still in the processor's cache when orjson reads it, and the file is never held whole: the
#: next piece reuses the last one's memory.
PIECE = 64 * 1024


def read_jsonl(
    path: Name,
    report: ImportReport,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[Record]:
    """Every line of ``path`` that is a JSON object of a sound ``shape``, with its line number."""
    path = pathname(path)  # as str(Path(path)) spells it, in every message
    records: list[Record] = []
    bad = _Bad()
    number, blank = 1, True
    for data in read_pieces(path, "a JSON-lines log", piece=PIECE):
        if number == 1:  # a byte-order mark an editor put before the first line is no JSON
            data = data.removeprefix(UTF8_BOM)
        blank = blank and data.isspace()  # not data.strip(): that copies the piece
        lines = split_lines(data)
        _parse_into(
            records,
            bad,
            lines,
            number,
            report,
            path=path,
            # Only the file's last piece can end without a newline.
            torn=not data.endswith(b"\n"),
            shape=shape,
        )
        number += len(lines)
    if blank:
        raise UserError("empty file", path)
    bad.note(report, path)
    if not records:
        raise UserError("no JSON object on any line: not a JSON-lines log", path, bad.line or 1)
    if records[0][1].get("format") == "tracer":
        raise UserError(
            "this is already a tracer trace; open it with tracer show/replay", path, records[0][0]
        )
    return records


class _Bad:
    """The first line that was not a JSON object of a sound shape, and why."""

    def __init__(self) -> None:
        self.line: int | None = None
        self.why = "not a JSON object"

    def see(self, line: int, why: str) -> None:
        if self.line is None:
            self.line, self.why = line, why

    def note(self, report: ImportReport, path: Name) -> None:
        if self.line is not None:
            report.notes.append(f"{path}:{self.line}: {self.why} (skipped, with any others)")


def parse_lines(
    lines: Sequence[str] | Sequence[bytes] | Sequence[memoryview],
    first_number: int,
    report: ImportReport,
    *,
    path: Name = "",
    torn: bool = False,
    shape: Callable[[dict[str, Any]], str | None] | None = None,
) -> tuple[list[Record], int | None]:
    """Parse complete lines (numbered from ``first_number``): the one place a JSON line becomes
    a record, shared by whole-file imports and ``--follow``. Returns the records and the number
    of the first line that was not a JSON object of a sound ``shape`` (skipped and counted in
    ``report``, with a note naming why). Blank lines are passed over.

    With ``torn`` the last line may be cut off: it is dropped with a note, not counted as bad.
    """
    records: list[Record] = []
    bad = _Bad()
    _parse_into(
        records,
        bad,
        lines,
        first_number,
        report,
        path=path,
        torn=torn,
        shape=shape,
    )
    bad.note(report, path)
    return records, bad.line


def _parse_into(
    records: list[Record],
    bad: _Bad,
    lines: Sequence[str | bytes | memoryview],
    first_number: int,
    report: ImportReport,
    *,
    path: Name,
    torn: bool,
    shape: Callable[[dict[str, Any]], str | None] | None,
) -> None:
    """:func:`parse_lines`, adding to ``records`` and ``bad`` (a whole file is parsed a piece
    at a time, into one list, with one note for all its bad lines)."""
    last = len(lines) - 1
    append = records.append
    for index, raw in enumerate(lines):
        # The common case first: orjson reads the line and nothing about it is unusual. A
        # blank line, a bad one or a rare one (a long integer, deep nesting) comes out as MISS
        # and is looked at below; so an ordinary line costs one call.
        obj = _fast(raw, path, first_number + index) if isinstance(raw, str) else quick_loads(raw)
        if obj is MISS or obj is None:
            if isinstance(raw, memoryview):
                raw = raw.tobytes()
            if not raw or raw.isspace():
                continue
            number = first_number + index
            try:  # not ordinary: tracer.files.untrusted reads it the careful way, and says why
                obj = loads_line(raw, path, number)
            except UserError as exc:
                if torn and index == last:
                    report.notes.append(
                        f"{path}:{number}: the last line is cut off; kept the "
                        f"{len(records)} complete lines before it"
                    )
                    report.skip("torn last line")
                    continue
                bad.see(number, exc.message)
                report.skip("unreadable lines")
                continue
        problem = "not a JSON object" if type(obj) is not dict else shape and shape(obj)
        if problem:
            bad.see(first_number + index, problem)
            report.skip("unreadable lines")
            continue
        append((first_number + index, obj))


def _fast(text: str, path: Name, number: int) -> Any:
    """An ordinary line of text parsed the quick way, or None to send it the careful way.

    ``--follow`` hands over text lines. The C scanner is called directly
    (:data:`tracer.files.careful.raw_decode`: NaN and Infinity refused, as
    :func:`tracer.files.untrusted.loads` does). Anything unusual, such as padding, a "\r", a
    broken or over-long line, goes back to :func:`tracer.files.untrusted.loads`, which reads it
    the same way and names the problem.
    """
    if len(text) > MAX_LINE:
        return None
    # Here, not at the top: only --follow reads lines as text, and an import never loads it.
    from tracer.files.careful import raw_decode, vet

    try:
        obj, end = raw_decode(text)
        if end != len(text):
            return None
        vet(obj, text, path, number)
    except (ValueError, RecursionError, UserError):
        return None
    return obj
