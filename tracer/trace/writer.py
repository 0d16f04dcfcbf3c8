"""Append-only trace writer: the header, then one JSON line per event, flushed as written.

The loop never sees this module: it hands every event to a callback, and a :class:`TraceWriter`
is one such callback. Each line is flushed at once, so a session killed part-way leaves every
event it finished on disk and at most one torn last line, which the reader tolerates.

An import is different: it is not a live session, and a half-written import is only misleading.
With ``atomic=True`` the writer writes to a hidden temporary file beside the target and renames it
into place when the ``with`` block ends cleanly; if it ends with an exception, the temporary file
is removed and the target is left as it was.

An import also writes in bulk (``flush=False``): its lines wait, encoded, until a quarter of a
megabyte of them is ready, then are searched for secrets together, in one pass for every needle
(:mod:`tracer.trace.secret_scan`), and written. ``flush()`` writes what waits (a
``--follow`` import calls it for the readers following the file); an atomic import that fails
writes none of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from _thread import allocate_lock  # threading.Lock itself, without importing threading (3M)
from dataclasses import replace
from types import TracebackType

from tracer.trace.compact_json import line_bytes_encoder, line_encoder
from tracer.trace.events import Event, Header
from tracer.trace.redact import Redactor

TYPE_CHECKING = False
if TYPE_CHECKING:  # the check is the caller's: a recording's writer never imports it
    from os import PathLike
    from pathlib import Path
    from typing import IO, Any

    from tracer.trace.line_check import LineCheck

_ENCODE = line_encoder()
_ENCODE_BYTES = line_bytes_encoder()

BULK_BUFFER = 256 << 10
"""Bytes of lines kept before they are searched and written, when lines are not flushed one by
one (an import). Also the most one ``write`` call is handed: on this project's machines a single
write of half a megabyte or more to a new file cost ten times as much kernel time as the same
bytes in quarter-megabyte pieces (``bench/import_speed.py`` saw a sixth of an import go there)."""


def dumps(obj: Any) -> str:
    """One compact JSON line; non-ASCII kept as is, so Chinese text stays readable."""
    return _ENCODE(obj)  # one encoder for every line: building one costs as much


class TraceWriter:
    """Writes a trace file. Call it with an event; it assigns ``seq`` and ``t``.

    ``t`` is measured from the moment the writer was opened, on a monotonic clock, unless
    ``keep_time`` is set: an import writes sessions that happened long ago, and keeps the times
    their events already carry.

    Every line is checked against ``redact`` before it is written (by default: the secrets of
    this process's environment, see :mod:`tracer.trace.redact`), and a line that holds one is
    rebuilt from the redacted event, so no secret value is ever written, whichever event carried
    it. The check is one multi-needle search of the line (of a whole batch of lines, in bulk);
    ``bench/hardening.py`` measures it. Every trace, an import's too, is also searched for
    credential *shapes* (``sk_live_…``, JWTs, PEM keys): an imported session is shared as
    readily as a recording (``export --format html``), and a key pasted into a conversation is
    as secret as one in the environment. ``bench/import_speed.py`` prints what the search costs
    an import. Pass ``redact`` to choose.
    """

    def __init__(
        self,
        path: str | PathLike[str],
        header: Header,
        *,
        keep_time: bool = False,
        redact: Redactor | None = None,
        flush: bool = True,
        atomic: bool = False,
        check: LineCheck | None = None,
    ) -> None:
        self.keep_time = keep_time
        # Asked of each line's object before it is encoded (an import's readers' check). Kept
        # as the bound method: calling the instance goes through its type's call slot, which
        # costs as much again, once per line.
        self._check_line = check.line if check is not None else None
        # In bulk (an import), the check builds each line's object too, testing each value as
        # it puts it in (LineCheck.object_of): the same object, not looked up again.
        self._checked_object = check.object_of if check is not None else None
        self.redact = redact if redact is not None else Redactor.from_environ()
        self._flush_each = flush
        """Flush every line (a live recording); an import writes in bulk and calls flush().
        A bulk writer is fed by one thread: its lines take no lock (flush and close do)."""
        # Plain paths: only opened, renamed and removed here (pathlib costs 10M instructions
        # to import); :attr:`path` makes one a Path for a caller who asks.
        self._name = os.fspath(path)
        folder, name = os.path.split(self._name)
        os.makedirs(folder or os.curdir, exist_ok=True)
        self._target: str | None = None
        if atomic:
            self._target = self._name
            self._name = os.path.join(folder, f".{name}.{os.getpid()}.partial")
        # An import writes in bulk: its batch is already one big buffer, handed to the kernel
        # as it is (a buffered file would copy the batch into its own buffer first). The
        # file is binary: a line is encoded straight to UTF-8 bytes, never made a str only to
        # be encoded again by a text layer (that round trip was half of an import's writing).
        self._file: IO[bytes] = open(self._name, "wb", buffering=-1 if flush else 0)  # noqa: SIM115
        self._lock = allocate_lock()
        # In bulk, lines wait here (encoded, not yet searched) until BULK_BUFFER bytes of them
        # can be searched for secrets in one pass and written in one call.
        self._pending = bytearray()
        self._start = time.monotonic()
        self._seq = 0
        head = header.to_dict()
        if check is not None:
            check.header(head)
        self._write_line(head)
        if not flush and check is not None:
            # An import: every event takes the bulk, checked path, written out on its own and
            # bound once (no test a line of which path it is), its lines encoded with their
            # newline.
            self._encode_line = line_bytes_encoder(newline=True)
            self.write = self._write_checked  # type: ignore[method-assign]

    def write(self, event: Event) -> Event:
        """Stamp ``seq`` and ``t``, write the event as one line, return the stamped copy."""
        if self._flush_each:
            with self._lock:  # a recording's tools run in threads, and each writes its steps
                return self._write_flushed(event)
        # In bulk, one thread feeds the writer (an import, see ``flush``), so no lock is taken
        # per line: taking it cost nearly half as much as building the line's object. The bulk
        # path is written out here, not in a method: an import calls it for every event.
        self._seq += 1
        stamped = event if self.keep_time and event.seq == self._seq else self._stamp(event)
        # Copied into one buffer at once: orjson's bytes keep the whole buffer it grew while
        # encoding (ten times the line, on a long one), so a list of them held ten times the
        # trace in memory, and the memory the kernel had to hand over.
        pending = self._pending
        if self._checked_object is not None:
            data = self._checked_object(stamped)
        else:
            data = stamped.to_dict()
        pending += _ENCODE_BYTES(data)
        pending.append(10)
        if len(pending) >= BULK_BUFFER:
            with self._lock:
                self._drain()
        return stamped

    def _write_checked(self, event: Event) -> Event:
        """:meth:`write` in bulk with a check (an import): the same line, the same checks."""
        self._seq += 1
        stamped = event if self.keep_time and event.seq == self._seq else self._stamp(event)
        # Both functions are read as attributes, then called: ``self._encode_line(…)`` would be
        # looked up as a method first, which Python 3.11 cannot make fast for a function kept on
        # the instance (a slow look-up each, for every line).
        encode, checked_object = self._encode_line, self._checked_object
        pending = self._pending
        pending += encode(checked_object(stamped))  # type: ignore[misc]
        if len(pending) >= BULK_BUFFER:
            with self._lock:
                self._drain()
        return stamped

    def _stamp(self, event: Event) -> Event:
        """The event numbered by this writer (and dated by it, unless it keeps the times)."""
        t = event.t if self.keep_time else round(time.monotonic() - self._start, 3)
        return replace(event, seq=self._seq, t=t)

    def _write_flushed(self, event: Event) -> Event:
        self._seq += 1
        stamped = event if self.keep_time and event.seq == self._seq else self._stamp(event)
        data = stamped.to_dict()
        if self._check_line is not None:
            self._check_line(stamped, data)
        self._write_line(data)
        return stamped

    # Calling the writer is writing (it is the loop's event callback): the same function, not a
    # wrapper around it, since an import calls it for every event.
    __call__ = write

    def _write_line(self, obj: dict[str, Any]) -> None:
        line = _ENCODE_BYTES(obj)
        if not self._flush_each:
            self._pending += line
            self._pending.append(10)
            return
        if self.redact.found_in_bytes(line):
            line = _ENCODE_BYTES(self.redact(obj))
        self._file.write(line + b"\n")
        self._file.flush()

    def _drain(self) -> None:
        """Write the pending lines, each redacted where it holds a secret: one search of them
        all together, then a second look at only the lines a needle was found in."""
        if not self._pending:
            return
        batch, self._pending = self._pending, bytearray()
        spans = self.redact.lines_to_redact(batch)
        if spans:
            parts: list[bytes | bytearray]
            parts, at = [], 0
            for start, end in spans:
                # Rebuilt from the line itself, not from the event's object: the caller may
                # have changed a dict it shares with the event since, and what is written must
                # be what was encoded when the event was, redacted.
                parts += (batch[at:start], _ENCODE_BYTES(self.redact(json.loads(batch[start:end]))))
                at = end
            parts.append(batch[at:])
            batch = bytearray().join(parts)
        view = memoryview(batch)
        while view:  # an unbuffered write may take only part of it
            taken = self._file.write(view[:BULK_BUFFER])
            if not taken:  # never for a regular file; never a loop that cannot end either
                raise OSError(f"{self._name}: the write took no bytes")
            view = view[taken:]

    def flush(self) -> None:
        """Put every line written so far on disk (for readers following the file)."""
        with self._lock:
            self._drain()
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file.closed:
                return
            try:
                self._drain()
            except BaseException:
                self._abandon()
                raise
            self._file.close()
            if self._target is not None:  # atomic: the finished file takes the target's place
                os.replace(self._name, self._target)
                self._name, self._target = self._target, None

    def discard(self) -> None:
        """Close and delete what was written (atomic writers only: the target is untouched)."""
        if self._target is None:
            self.close()
            return
        with self._lock:
            self._abandon()  # what is pending is never written: the import failed

    def _abandon(self) -> None:
        """Close without writing what is pending; an atomic writer's partial file goes too."""
        self._pending = bytearray()
        self._file.close()
        if self._target is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._name)
            self._name, self._target = self._target, None

    @property
    def path(self) -> Path:
        """The file being written: the partial file of an atomic writer until it is closed, then
        the target."""
        from pathlib import Path

        return Path(self._name)

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None and self._target is not None:
            self.discard()
        else:
            self.close()


class EventList:
    """An in-memory callback that stamps events as the writer does (for tests and benches)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> Event:
        stamped = replace(event, seq=len(self.events) + 1)
        self.events.append(stamped)
        return stamped
