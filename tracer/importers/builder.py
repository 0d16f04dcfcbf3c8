"""Turning someone else's log into our journey: the steps every importer emits.

A live recording gets its events from :mod:`tracer.agent.loop` as the loop runs. An import has
only what the source wrote down afterwards (a Claude Code transcript, a wire log), so it replays
the same sequence by hand: for each model call ``turn_start`` and the ``Loop turn`` hook, the
**resending** request (stored by reference, exactly as ``Resender._log_request`` stores it),
``response``, ``follow_up`` and its hook; for each tool result ``tool_run``, **mapping**, the
wrapped message, **wrapping** and the ``Tool result`` hook; then **appending** and the (never
exceeded) max-turns check; finally ``terminal``.

:class:`TraceBuilder` owns the internal message list (``state.messages`` in the loop) and the
request log, so both importers stay about *reading* their format, not about writing ours. What a
source cannot tell us is never made up: no permission step unless the user visibly refused, no
``tool_start`` (nobody logged when a tool started), ``max_turns`` left unset.

The builder is put together from one part per kind of step, each a module of its own:

* :mod:`tracer.importers.steps`: numbering, dating and writing a step, each message once;
* :mod:`tracer.importers.model_call_steps`: a model call (turn start, resending, the response,
  the follow-up decision, failed attempts);
* :mod:`tracer.importers.tool_result_steps`: a tool result (``tool_run``, mapping, wrapping);
* here: what happens to the list between calls (appending, compaction, nested loops) and the
  loop's end.

The parts are base classes rather than helpers the builder calls, so a step costs one method
call, as before: an import writes thousands of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracer.importers.model_call_steps import ModelCallSteps
from tracer.importers.tool_result_steps import (
    ToolResultSteps,
)
from tracer.model.internal_messages import Message
from tracer.trace.events import HistoryAppended, MaxTurnsChecked, SessionEnded

TYPE_CHECKING = False
if TYPE_CHECKING:  # EndReason is a Literal: at run time it would import typing
    from typing import Any

    from tracer.trace.events import EndReason

__all__ = [
    "TraceBuilder",
]


class TraceBuilder(ModelCallSteps, ToolResultSteps):
    """Emits the journey's steps for an imported session and keeps its internal message list."""

    def nested(self) -> TraceBuilder:
        """A builder for a loop run inside this one (a subagent): its own history, turns and
        requests, the same clock and event numbering."""
        inner = TraceBuilder(self.emit)
        inner.events, inner.t, inner._origin = self.events, self.t, self._origin
        inner._latest = self._latest
        inner.request_index = self.request_index  # request numbers stay unique in the trace
        return inner

    def adopt(self, inner: TraceBuilder) -> None:
        """Carry on after a nested loop. The next request shares nothing with the nested loop's
        last one (``prefix_len`` 0), so readers that do not know nesting still rebuild it."""
        self.events, self.t = inner.events, max(self.t, inner.t)
        self._latest = max(self._latest, inner._latest)
        self.request_index = inner.request_index
        self._prev_api = []
        # Readers carry a request's params forward to the next one, the nested loop's too: the
        # next request says its own again (a subagent often runs on another model).
        self._params, self._keys = None, None

    def extend(self, messages: Sequence[Message]) -> None:
        """Put messages on the list without a step (between loops), recording any new ones."""
        self.record([m for m in messages if m.uuid not in self.by_uuid])
        self.messages.extend(messages)

    def append(self, new: list[Message]) -> None:
        """Appending, then the max-turns check (no limit is known for an imported session)."""
        before = len(self.messages)
        by_uuid = self.by_uuid
        # Named and counted in the same pass that records the new messages: a comprehension of
        # its own costs as much to start as a call, for a list of two or three.
        uuids: list[str] = []
        assistants = results = 0
        for m in new:
            uuids.append(m.uuid)
            if m.uuid not in by_uuid:
                self.record((m,))
            if m.type == "assistant":
                assistants += 1
            elif m.has_tool_result():
                results += 1
        # In place, as :meth:`extend` does: nothing keeps the old list to compare with (the
        # normalized list's cache checks the length too), and a copy would cost the whole
        # history on every call.
        self.messages.extend(new)
        self.events += 1  # each step's event is built in place: see StepWriter._emit
        event = HistoryAppended.new(
            seq=self.events,
            turn=self.turn,
            t=self.t,
            before_count=before,
            after_count=len(self.messages),
            new_uuids=uuids,
            assistant_count=assistants,
            tool_result_count=results,
            api_before_count=self._api_count,
            api_after_count=len(self._normalized(self.messages)),
        )
        self.emit(event)
        self.events += 1
        self.emit(
            MaxTurnsChecked.new(
                seq=self.events,
                turn=self.turn,
                t=self.t,
                next_turn_count=self.turn + 1,
                exceeded=False,
            )
        )

    def reset(
        self, messages: list[Message], text: str, data: dict[str, Any], topic: str = "compaction"
    ) -> None:
        """Compaction (or a cleared context): the list is replaced; the next request starts
        afresh."""
        before = len(self.messages)
        self.record([m for m in messages if m.uuid not in self.by_uuid])
        self.messages = list(messages)
        self.note(
            topic,
            text,
            data={**data, "before_count": before, "after_count": len(self.messages)},
        )

    def end(self, reason: EndReason, error: str | None = None) -> None:
        self._emit(
            SessionEnded,
            reason=reason,
            turn_count=self.turn,
            message_count=len(self.messages),
            error=error,
        )
