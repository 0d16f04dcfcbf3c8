"""Lazy, tolerant trace reader.

Opening a trace reads only its header and an index of where each line starts (like toolong's log
files); an event is decoded when asked for, and recent ones sit in an LRU cache. A huge trace
therefore opens as fast as a small one.

Tolerant means: a last line cut off mid-event (the recorder was killed) is not an error; every
complete event before it is kept and :attr:`TraceReader.torn_line` says where the file ends.
Kinds this version does not know come back as :class:`~tracer.trace.events.UnknownEvent`.
Anything else wrong raises :class:`~tracer.errors.UserError` naming the file and line.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.trace.events import (
    FORMAT,
    STEP_KINDS,
    VERSION,
    AnyEvent,
    MessageRecorded,
    from_dict,
)

_KIND_PREFIX = b'{"kind":"'


class TraceReader:
    """A trace file, indexed by line. ``reader[i]`` is event *i* (0-based; file line ``i + 2``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise UserError("no such file", self.path)
        if self.path.is_dir():
            raise UserError("is a directory, not a trace", self.path)
        self._fd = os.open(self.path, os.O_RDONLY)
        self._offsets: list[int] = []
        self._ends: list[int] = []
        self._scanned = 0
        self.torn_line: int | None = None
        """File line number of a last line cut off mid-event, if there is one."""
        self.header = self._read_header()
        self.refresh()
        self._decode = lru_cache(maxsize=4096)(self._decode_uncached)

    # -- opening -------------------------------------------------------------------------------

    def _read_header(self) -> dict[str, Any]:
        first = b""
        while not first.endswith(b"\n"):
            chunk = os.pread(self._fd, 65536, len(first))
            if not chunk:
                break
            first += chunk
            if b"\n" in first:
                first = first[: first.index(b"\n") + 1]
        if not first.strip():
            raise UserError("empty file, not a tracer trace", self.path)
        try:
            header = json.loads(first)
        except ValueError:
            raise UserError("not a tracer trace (line 1 is not JSON)", self.path, 1) from None
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
        self._scanned = len(first)
        return header

    def refresh(self) -> int:
        """Index lines appended since the last call; return how many new events there are.

        A partial last line is left unindexed (and reported as torn) until its newline arrives,
        which is what ``--follow`` needs while a recorder is still writing.
        """
        size = os.fstat(self._fd).st_size
        if size <= self._scanned:
            return 0
        data = os.pread(self._fd, size - self._scanned, self._scanned)
        base = self._scanned
        before = len(self._offsets)
        pos = 0
        while True:
            nl = data.find(b"\n", pos)
            if nl < 0:
                break
            if nl > pos:  # skip blank lines
                self._offsets.append(base + pos)
                self._ends.append(base + nl)
            pos = nl + 1
        self._scanned = base + pos
        rest = data[pos:]
        self.torn_line = len(self._offsets) + 2 if rest.strip() else None
        return len(self._offsets) - before

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
        head = os.pread(self._fd, 64, self._offsets[index])
        if head.startswith(_KIND_PREFIX):
            end = head.find(b'"', len(_KIND_PREFIX))
            if end > 0:
                return head[len(_KIND_PREFIX) : end].decode()
        return getattr(self[index], "kind", None)

    def is_step(self, index: int) -> bool:
        return self.kind_of(index) in STEP_KINDS

    def __getitem__(self, index: int) -> AnyEvent:
        if index < 0:
            index += len(self._offsets)
        if not 0 <= index < len(self._offsets):
            raise IndexError(index)
        return self._decode(index)

    def _decode_uncached(self, index: int) -> AnyEvent:
        line = self.line_number(index)
        try:
            data = json.loads(self.raw(index))
        except ValueError as exc:
            raise UserError(f"not valid JSON ({exc.msg})", self.path, line) from None
        if not isinstance(data, dict):
            raise UserError("an event must be a JSON object", self.path, line)
        try:
            event = from_dict(data)
        except (ValueError, TypeError) as exc:
            raise UserError(str(exc), self.path, line) from None
        if isinstance(event, MessageRecorded) and (event.block_seq or event.tool_use_result_seq):
            event = self._whole_message(event, line)
        return event

    def _whole_message(self, message: MessageRecorded, line: int) -> MessageRecorded:
        """Put back the pieces a message points at instead of repeating them."""
        content, raw = message.content, message.tool_use_result
        try:
            if message.block_seq:
                block = self.by_seq(message.block_seq).block  # type: ignore[union-attr]
                content = [block, *(content or [])]
            if message.tool_use_result_seq:
                raw = self.by_seq(message.tool_use_result_seq).output  # type: ignore[union-attr]
        except (IndexError, AttributeError):
            raise UserError(
                "message points at an event that is not there", self.path, line
            ) from None
        return replace(message, content=content, tool_use_result=raw)

    def by_seq(self, seq: int) -> AnyEvent:
        """The event with sequence number ``seq`` (the writer numbers events from 1, in order)."""
        return self[seq - 1]

    def tool_use_result(self, message: Any) -> Any:
        """A message event's raw tool output (decoded messages already carry it whole)."""
        seq = getattr(message, "tool_use_result_seq", None)
        if seq and getattr(message, "tool_use_result", None) is None:
            return getattr(self.by_seq(seq), "output", None)
        return getattr(message, "tool_use_result", None)

    def dict_at(self, index: int) -> dict[str, Any]:
        """Event ``index`` as plain JSON data (what the file holds)."""
        try:
            data = json.loads(self.raw(index))
        except ValueError as exc:
            raise UserError(
                f"not valid JSON ({exc.msg})", self.path, self.line_number(index)
            ) from None
        return data

    def __iter__(self) -> Iterator[AnyEvent]:
        for i in range(len(self._offsets)):
            yield self[i]

    def torn_notice(self) -> str | None:
        """The sentence users see when the file ends mid-event."""
        if self.torn_line is None:
            return None
        return (
            f"the trace ends mid-event at line {self.torn_line}; "
            f"kept the {len(self)} complete events before it"
        )

    def close(self) -> None:
        # getattr: __init__ may have failed before the file was opened (a missing file).
        if getattr(self, "_fd", -1) >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> TraceReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()


def open_trace(path: str | Path) -> TraceReader:
    """Open a trace for reading; bad input raises :class:`UserError`."""
    return TraceReader(path)
