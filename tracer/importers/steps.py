"""How an importer writes a step: numbered, dated and turned into an event, messages once each.

:class:`StepWriter` is the part of :class:`~tracer.importers.builder.TraceBuilder` every step
goes through. The live loop numbers and dates its events as it runs (``QueryLoop`` in
:mod:`tracer.agent.loop`); an import has only the wall-clock times the source logged, so here
``t`` is counted from the session's first dated moment and never runs backwards, and ``seq`` is
given as the writer would give it. A message is written once, the first time it appears
(``message`` events); every later step names it by uuid, as a live trace does.

The steps themselves live beside it: a model call's in :mod:`tracer.importers.model_call_steps`,
a tool result's in :mod:`tracer.importers.tool_result_steps`, appending and compaction in
:mod:`tracer.importers.builder`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tracer.importers.output import epoch_of
from tracer.model.internal_messages import Message
from tracer.trace.events import DebugHook, Event, ImportNote
from tracer.trace.message_record import message_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

_NOTHING = object()
"""No moment dated yet (``None`` is a moment too: an undated one)."""


class StepWriter:
    """Numbers, dates and emits each step; keeps every message written so far by uuid."""

    def __init__(self, emit: Callable[[Event], Any]) -> None:
        self.emit = emit
        self.turn = 0
        self.messages: list[Message] = []
        """The internal message list (``state.messages`` in the loop)."""
        self.by_uuid: dict[str, Message] = {}
        self.events = 0
        self.t = 0.0
        self._origin: float | None = None
        self._latest = float("-inf")
        """The latest moment dated so far: ``t`` is at least its time already, so a moment no
        later cannot move the clock on (see :meth:`at`)."""
        self._moment: Any = _NOTHING
        self._epoch: float | None = None
        """The moment dated last, as the source logged it, and in seconds (see :meth:`at`)."""

    def at(self, moment: Any) -> float | None:
        """Date the next events by a moment the source logged (ISO-8601 text, or seconds since
        1970: :func:`~tracer.importers.output.epoch_of`); returns it in seconds, ``None`` when
        unreadable (it then dates nothing).

        Sources log wall-clock times; a trace's ``t`` counts from the session's first dated
        moment and never runs backwards (side calls and tool results can be logged out of
        order). A result's message is dated with its steps, then again as it is recorded: the
        moment dated last is kept, and dating it again is no more than a comparison.
        """
        if moment is self._moment:
            return self._epoch
        epoch = epoch_of(moment)
        self._moment, self._epoch = moment, epoch
        if epoch is None:
            return None
        if self._origin is None:
            self._origin = epoch
        # Rounding a float to the millisecond costs about 1.7K instructions (it is formatted
        # and parsed again): a moment no later than the latest cannot give a later ``t``, so
        # it is not rounded.
        if epoch > self._latest:
            self._latest = epoch
            t = round(epoch - self._origin, 3)
            if t > self.t:
                self.t = t
        return epoch

    def _emit(self, cls: type[Event], **fields: Any) -> Any:
        """Number, date and emit one event.

        Numbered here as the writer will number it, so the writer need not copy the event. The
        steps an import writes for every call and every result (messages, hooks, the journey's
        steps) do the same in place, ``self.events += 1`` then
        ``self.emit(Kind.new(seq=self.events, turn=self.turn, t=self.t, ...))``: handing the
        fields through ``**fields`` copies them into a dict twice before the event is built, a
        third of what building it costs, and ``Kind.new`` takes them as they are, where calling
        the class packs them into a dict once more (:func:`tracer.trace.event_code.
        factory_source`)."""
        self.events += 1
        return self.emit(cls(seq=self.events, turn=self.turn, t=self.t, **fields))

    def note(self, topic: str, text: str, **fields: Any) -> None:
        self._emit(ImportNote, topic=topic, text=text, **fields)

    def record(
        self,
        messages: Iterable[Message],
        raw_seq: int | None = None,
        block_seq: int | None = None,
    ) -> list[str]:
        """Write each message once (later events refer to it by uuid); their uuids, in order
        (a response's event names its messages: a list of its own would cost a comprehension).

        With ``raw_seq`` the raw tool output is not repeated: it is that ``tool_run``'s output;
        with ``block_seq`` neither is the first content block: it is that ``mapping``'s block
        (the same record the live loop writes: :func:`~tracer.trace.message_record.message_event`).

        The messages come as one sequence, not as ``*messages``: a call that unpacks its
        arguments into a tuple is a call Python cannot make in place (a C-level call, about
        twice a plain one), and every response and every result records its messages."""
        by_uuid, emit, turn = self.by_uuid, self.emit, self.turn
        uuids: list[str] = []
        for m in messages:
            uuid = m.uuid
            by_uuid[uuid] = m
            uuids.append(uuid)
            stamp = m.timestamp
            self.at(stamp)
            self.events += 1  # _emit, in place (see there)
            emit(
                message_event(
                    m,
                    turn,
                    raw_seq,
                    block_seq,
                    seq=self.events,
                    t=self.t,
                    timestamp=stamp or None,
                )
            )
        return uuids

    def _hook(self, hook: Literal["loop_turn", "needs_follow_up"], line: str) -> None:
        self.events += 1  # _emit, in place (see there)
        self.emit(DebugHook.new(seq=self.events, turn=self.turn, t=self.t, hook=hook, line=line))
