"""Lazy, tolerant trace reader: the events of a trace, decoded when asked for and checked.

:class:`TraceReader` stands on :class:`~tracer.trace.line_index.LineIndex`, which opens a trace by
reading only its header and an index of where each line starts; an event is decoded when asked
for, and recent ones sit in an LRU cache. A huge trace therefore opens as fast as a small one.

Tolerant means: a last line cut off mid-event (the recorder was killed) is not an error; every
complete event before it is kept and :attr:`TraceReader.torn_line` says where the file ends.
Kinds this version does not know come back as :class:`~tracer.trace.events.UnknownEvent`.
Anything else wrong raises :class:`~tracer.errors.UserError` naming the file and line.

Strict means: bytes come in through :mod:`tracer.files.untrusted` (regular files only, bounded
lines, strict UTF-8, bounded nesting), and every decoded event is checked against the event schema
and :mod:`~tracer.trace.shapes` before anyone sees it, so the views behind the reader can
trust types. ``seq`` must equal the event's position, which also makes the pointers a message keeps
(``block_seq``, ``tool_use_result_seq``) safe to follow: they may only point back, at an event of
the right kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from tracer.errors import UserError
from tracer.trace.events import STEP_KINDS, AnyEvent, MessageRecorded, UnknownEvent, from_dict
from tracer.trace.line_index import LineIndex
from tracer.trace.shapes import event_problems

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class TraceReader(LineIndex):
    """A trace file, indexed by line. ``reader[i]`` is event *i* (0-based; file line ``i + 2``)."""

    def __init__(self, path: str | Path, *, first: int | None = None) -> None:
        """``first``: index only about that many bytes now (whole lines), and the rest as
        :meth:`refresh` is called again (:class:`~tracer.trace.line_index.LineIndex`)."""
        super().__init__(path, first=first)
        self._decode = lru_cache(maxsize=4096)(self._decode_uncached)

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
        data = self.dict_at(index)
        if not isinstance(data, dict):
            raise UserError("an event must be a JSON object", self.path, line)
        problem = event_problems(data)
        if problem:
            raise UserError(problem, self.path, line)
        try:
            event = from_dict(data)
        except (ValueError, TypeError) as exc:
            raise UserError(str(exc), self.path, line) from None
        if event.seq != index + 1 and not isinstance(event, UnknownEvent):
            raise UserError(
                f"seq {event.seq} on the line of event {index + 1}: a line is missing, repeated "
                "or out of order",
                self.path,
                line,
            )
        if isinstance(event, MessageRecorded) and (event.block_seq or event.tool_use_result_seq):
            event = self._whole_message(event, line)
        return event

    def _whole_message(self, message: MessageRecorded, line: int) -> MessageRecorded:
        """Put back the pieces a message points at instead of repeating them.

        A pointer may only point back, at a ``mapping`` (for the block) or a ``tool_run`` (for the
        raw output): neither kind points anywhere, so following one can never loop.
        """
        content, raw = message.content, message.tool_use_result
        if message.block_seq:
            block = self._pointed(message, message.block_seq, "mapping", line).block  # type: ignore[union-attr]
            content = [block, *(content or [])]
        if message.tool_use_result_seq:
            target = self._pointed(message, message.tool_use_result_seq, "tool_run", line)
            raw = target.output  # type: ignore[union-attr]
        return replace(message, content=content, tool_use_result=raw)

    def _pointed(self, message: MessageRecorded, seq: int, kind: str, line: int) -> AnyEvent:
        if not 1 <= seq < message.seq or self.kind_of(seq - 1) != kind:
            raise UserError(
                f"message points at seq {seq}, which is not an earlier {kind} event",
                self.path,
                line,
            )
        return self.by_seq(seq)

    def by_seq(self, seq: int) -> AnyEvent:
        """The event with sequence number ``seq`` (the writer numbers events from 1, in order)."""
        if not 1 <= seq <= len(self._offsets):
            raise UserError(f"no event with seq {seq} in this trace", self.path)
        return self[seq - 1]

    @property
    def complete(self) -> bool:
        """Whether the session's last loop has its ``terminal`` event.

        A recorder that was killed (or a log that was cut) stops before it; an import may hold
        several loops, so the test is: the last ``session_start`` or ``turn_start`` is followed by a
        ``terminal``. Scanning backwards reads only a few line heads.
        """
        for i in range(len(self._offsets) - 1, -1, -1):
            try:
                kind = self.kind_of(i)
            except UserError:
                continue  # a broken line is reported where it is read, not here
            if kind == "terminal":
                return self.torn_line is None
            if kind in ("turn_start", "session_start"):
                return False
        return False

    def incomplete_notice(self) -> str | None:
        """The sentence users see when the session has no ending."""
        if self.complete:
            return None
        return "incomplete: the recorder stopped before the session ended (no terminal event)"

    def tool_use_result(self, message: Any) -> Any:
        """A message event's raw tool output (decoded messages already carry it whole)."""
        seq = getattr(message, "tool_use_result_seq", None)
        if seq and getattr(message, "tool_use_result", None) is None:
            return getattr(self.by_seq(seq), "output", None)
        return getattr(message, "tool_use_result", None)

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


def open_trace(path: str | Path) -> TraceReader:
    """Open a trace for reading; bad input raises :class:`UserError`."""
    return TraceReader(path)
