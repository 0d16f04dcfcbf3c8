"""A trace file as an index of its lines: the header checked, each later line found, not decoded.

Opening a trace reads only its header and an index of where each line starts (like toolong's log
files), so a huge trace opens as fast as a small one: :class:`LineIndex` finds the lines in
chunks, and reads an event's kind from the head of its line without decoding the rest. Turning a
line into an event, checked, is :class:`~tracer.trace.reader.TraceReader`'s job, built on this.

Tolerant means: a last line cut off mid-event (the recorder was killed) is not an error; every
complete line before it is indexed and :attr:`LineIndex.torn_line` says where the file ends.
Strict means: bytes come in through :mod:`tracer.files.untrusted` (regular files only, bounded
lines, strict UTF-8, bounded nesting), the header must be a tracer trace's this version can read,
and a file too large, a line too long or too many lines raise :class:`~tracer.errors.UserError`
naming the file and line. :func:`trace_problem` asks the header's questions alone, for a folder of
traces listed without indexing each.
"""

from __future__ import annotations

import contextlib
import os
import sys
from array import array
from itertools import accumulate, compress
from pathlib import Path

from tracer.errors import UserError
from tracer.files.untrusted import MAX_LINE, UTF8_BOM, loads, open_regular
from tracer.trace.events import FORMAT, VERSION
from tracer.trace.shapes import header_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self

_KIND_PREFIX = b'{"kind":"'
_UNREAD = object()
_CHUNK = 1 << 20
MAX_TRACE = 16 * 1024**3
"""Bytes in one trace file. A long real session is tens of MB; past this it is not a trace."""
MAX_EVENTS = 4_000_000
"""Lines indexed in one trace (the index costs 16 bytes a line; real traces hold thousands)."""


class LineIndex:
    """A trace file, indexed by line: line *i* after the header holds event *i* (file line
    ``i + 2``): its bytes (:meth:`raw`), its JSON (:meth:`dict_at`), its kind (:meth:`kind_of`)."""

    def __init__(self, path: str | Path, *, first: int | None = None) -> None:
        """``first``: index only about that many bytes now (whole lines), and the rest as
        :meth:`refresh` is called again; the replay's first frame of a 50 MB trace need not
        wait for every line of it to be found (``scanned_all`` says when they have been)."""
        self.path = Path(path)
        self._fd = open_regular(self.path, "a trace")
        self._offsets = array("q")  # where each line starts, and ends (its newline)
        self._ends = array("q")
        self._kinds: list[Any] = []
        """Each line's kind once read (:data:`_UNREAD` before): a line never changes once
        indexed, and the views ask for the same kinds again and again."""
        self._scanned = 0
        self.torn_line: int | None = None
        """File line number of a last line cut off mid-event, if there is one."""
        self.scanned_all = False
        """Whether :meth:`refresh` has read to the end of the file (with ``first``, not at once)."""
        self.header = self._read_header()
        self.refresh(first)

    # -- opening -------------------------------------------------------------------------------

    def _read_header(self) -> dict[str, Any]:
        # Linear in the line's length: each chunk is searched once and appended once (adding to
        # bytes and searching the whole of it again each time was quadratic).
        buffer = bytearray()
        while len(buffer) <= MAX_LINE:
            chunk = os.pread(self._fd, _CHUNK, len(buffer))
            if not chunk:
                break
            nl = chunk.find(b"\n")
            if nl >= 0:
                buffer += chunk[: nl + 1]
                break
            buffer += chunk
        first = bytes(buffer)
        if not first.strip():
            raise UserError("empty file, not a tracer trace", self.path)
        try:
            # A byte-order mark before the header (an editor on Windows saved the file) is not
            # part of the JSON: read past it, as the importers do; the lines after keep their
            # offsets in the file.
            header = loads(first.removeprefix(UTF8_BOM), self.path, 1)
        except UserError as exc:
            what = "line 1 is not JSON" if exc.message.startswith("not valid JSON") else exc.message
            raise UserError(f"not a tracer trace ({what})", self.path, 1) from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            from tracer.trace.foreign import import_hint

            hint = import_hint(header, str(self.path))
            raise UserError(
                f'not a tracer trace (line 1 has no "format": "tracer"){hint}', self.path, 1
            )
        version = header.get("version")
        if not isinstance(version, int):
            raise UserError('trace header has no integer "version"', self.path, 1)
        if version > VERSION:
            raise UserError(
                f"written by a newer tracer (format version {version}; this one reads up to "
                f"{VERSION}): upgrade tracer",
                self.path,
                1,
            )
        if problem := header_problem(header):
            raise UserError(problem, self.path, 1)
        self._scanned = len(first)
        return header

    def refresh(self, limit: int | None = None) -> int:
        """Index lines appended since the last call (``limit``: about that many bytes of them,
        whole lines; the rest the next time); return how many new events there are.

        A partial last line is left unindexed (and reported as torn) until its newline arrives,
        which is what ``--follow`` needs while a recorder is still writing.
        """
        size = os.fstat(self._fd).st_size
        if size > MAX_TRACE:
            raise UserError(f"too large ({size:,} bytes; the limit is {MAX_TRACE:,})", self.path)
        before = len(self._offsets)
        # In chunks, never the whole rest at once: memory stays at one chunk plus the index.
        start = self._scanned  # where the line being scanned began
        at = start  # how far the file has been searched for its newline
        torn = False
        stop = size if limit is None else min(size, start + max(limit, 1))
        while at < size and (at < stop or len(self._offsets) == before):  # (a line at least)
            data = os.pread(self._fd, min(_CHUNK, size - at), at)
            if not data:
                break
            lines = data.split(b"\n")  # the last piece has no newline yet
            if len(lines) > 1 and not self._add_chunk(lines, at, start):
                pos = 0  # a line too long, or too many: line by line, to say which
                while (nl := data.find(b"\n", pos)) >= 0:
                    end = at + nl
                    if end - start > MAX_LINE:
                        self._too_long(end - start)
                    if end > start:  # skip blank lines
                        self._add(start, end)
                    start, pos = end + 1, nl + 1
            elif len(lines) > 1:
                start = at + len(data) - len(lines[-1])
            at += len(data)
            if at - start > MAX_LINE:  # no newline within the limit: not a line we can read
                self._too_long(at - start)
            torn = at > start
        self._scanned = start
        self._kinds.extend([_UNREAD] * (len(self._offsets) - len(self._kinds)))
        self.scanned_all = at >= size
        self.torn_line = None
        if self.scanned_all and torn and self._tail_has_data(start, size):
            self.torn_line = len(self._offsets) + 2
        return len(self._offsets) - before

    def estimated_events(self) -> int:
        """How many events the file holds: counted once it is all indexed, else reckoned from
        the lines indexed so far and the bytes still to read."""
        if self.scanned_all or not self._scanned:
            return len(self._offsets)
        size = os.fstat(self._fd).st_size
        return int(len(self._offsets) * size / self._scanned)

    def _add_chunk(self, lines: list[bytes], at: int, start: int) -> bool:
        """Index the whole lines of a chunk read at ``at`` (``lines``: the chunk split at its
        newlines; the first began at ``start``, maybe in an earlier chunk). False, with nothing
        indexed, when a line is too long or there are too many: the caller goes line by line
        then, to name the line. Offsets are worked out by C loops (split, accumulate), not a
        Python call a line: on a 190,000-event trace that was most of the first frame's cost."""
        lengths = list(map(len, lines[:-1]))
        if at + lengths[0] - start > MAX_LINE or max(lengths) > MAX_LINE:
            return False
        if len(self._offsets) + len(lengths) > MAX_EVENTS:
            return False
        after = list(accumulate(n + 1 for n in lengths))  # just past each newline, from ``at``
        ends = [at + a - 1 for a in after]
        starts = [start, *(at + a for a in after[:-1])]
        if 0 in lengths[1:] or ends[0] <= start:  # blank lines are skipped
            keep = [e > b for b, e in zip(starts, ends, strict=True)]
            starts, ends = list(compress(starts, keep)), list(compress(ends, keep))
        self._ends.extend(ends)  # (first: a line counts once its start is in, read by len())
        self._offsets.extend(starts)
        return True

    def _add(self, start: int, end: int) -> None:
        if len(self._offsets) >= MAX_EVENTS:
            raise UserError(f"more than {MAX_EVENTS:,} events: refused", self.path)
        self._ends.append(end)
        self._offsets.append(start)

    def _too_long(self, length: int) -> None:
        line = len(self._offsets) + 2
        raise UserError(f"line too long (over {MAX_LINE:,} bytes)", self.path, line)

    def _tail_has_data(self, start: int, size: int) -> bool:
        """Whether the unfinished last line holds more than blanks (it is at most MAX_LINE)."""
        return bool(os.pread(self._fd, size - start, start).strip())

    # -- access --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._offsets)

    def raw(self, index: int) -> bytes:
        """The bytes of event ``index``'s line, without the newline."""
        start, end = self._offsets[index], self._ends[index]
        return os.pread(self._fd, end - start, start)

    def line_number(self, index: int) -> int:
        return index + 2

    def kind_of(self, index: int) -> str | None:
        """The event's kind, read from the start of its line without decoding the JSON.

        The writer always puts ``kind`` first; for lines that do not, this decodes.
        """
        if index < 0:
            index += len(self._offsets)
        try:
            known = self._kinds[index]
        except IndexError:  # a line a refresh in another thread is indexing right now
            return self._kind_uncached(index)
        if known is _UNREAD:
            known = self._kinds[index] = self._kind_uncached(index)
        return known

    def _kind_uncached(self, index: int) -> str | None:
        head = os.pread(self._fd, 64, self._offsets[index])
        if head.startswith(_KIND_PREFIX):
            end = head.find(b'"', len(_KIND_PREFIX))
            if end > 0:
                with contextlib.suppress(UnicodeDecodeError):
                    return sys.intern(head[len(_KIND_PREFIX) : end].decode())
        # Not a line the writer wrote: parse it, but do not decode the event (that could follow
        # its pointers, and this is what the pointer check itself calls).
        data = self.dict_at(index)
        kind = data.get("kind") if isinstance(data, dict) else None
        return kind if isinstance(kind, str) else None

    def dict_at(self, index: int) -> dict[str, Any]:
        """Event ``index`` as plain JSON data (what the file holds), bounded and decoded."""
        return loads(self.raw(index), self.path, self.line_number(index))

    def close(self) -> None:
        # getattr: __init__ may have failed before the file was opened (a missing file).
        if getattr(self, "_fd", -1) >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()


def trace_problem(path: str | Path) -> UserError | None:
    """Why :class:`~tracer.trace.reader.TraceReader` would refuse ``path`` (the same error, word
    for word), judged from the file's first line alone, so a folder of traces is listed without
    indexing each; None when it opens as a trace."""
    try:
        _HeaderCheck(path).close()
    except UserError as exc:
        return exc
    return None


class _HeaderCheck(LineIndex):
    """An index that opens the file and reads its header line, and nothing more."""

    def __init__(self, path: str | Path) -> None:  # (no super().__init__: it indexes the file)
        self.path = Path(path)
        self._fd = open_regular(self.path, "a trace")
        try:
            self.header = self._read_header()
        except UserError:
            self.close()
            raise
