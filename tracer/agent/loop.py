"""The conversation loop: ask, run the tools, append, resend, until the model stops asking.

Mirrors ``queryLoop()`` in Claude Code's ``src/query.ts``, chapter 12's third station
(第三站：对话循环). The book writes the loop as ``while (true)``; here it is Python's
``while True``. Each turn:

1. the ``Loop turn`` hook, on the internal list the turn starts with;
2. **resending** (:mod:`~tracer.agent.resend`): the whole history, normalized for the API and
   checked by ``ensure_tool_result_pairing`` (``claude.ts``: every ``tool_use`` answered, no
   orphan result), goes out again (the API keeps no state between calls);
3. the streamed response becomes one internal assistant message per content block;
4. ``needs_follow_up`` is true when any block is a ``tool_use`` (not when ``stop_reason`` says
   so: Claude Code does not trust it); if false, the loop ends with ``completed``. A request
   that fails for good ends the loop too, after an ``API Error: …`` assistant message: 2.1.88
   returns ``completed`` there, tracer names it ``model_error`` (see
   :meth:`QueryLoop._end_with_model_error`);
5. the tools run and their results are mapped and wrapped (:mod:`~tracer.agent.execution`);
   each wrapped message is handed to the caller at once, so it is in the transcript from here on;
6. the strict max-turns check, ``next_turn_count > max_turns``: past the limit the loop yields a
   ``max_turns_reached`` attachment and returns, and no next state is ever built;
7. **appending**: ``[*messages_for_query, *assistant_messages, *tool_results]`` and
   ``next_turn_count`` make the next :class:`State` (query.ts: ``const next: State = {...}``, then
   ``state = next``).

The order of 6 and 7 is query.ts's (2.1.88): the check comes first, so the last turn's results
reach the transcript but never a next state, and so never a request.

The loop knows nothing of files or screens: it hands every event to ``emit``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tracer.agent.execution import ToolRunner
from tracer.agent.model import ModelError, ModelSeam
from tracer.agent.resend import Resender
from tracer.agent.tool_calls import tool_calls
from tracer.agent.tool_run import INTERRUPT_MESSAGE_FOR_TOOL_USE
from tracer.model.api_messages import normalize_messages_for_api
from tracer.model.internal_messages import (
    Message,
    create_api_error_message,
    create_assistant_messages,
    create_attachment_message,
    create_user_message,
)
from tracer.trace.events import (
    DebugHook,
    EndReason,
    Event,
    FollowUpDecided,
    HistoryAppended,
    MaxTurnsChecked,
    ResponseReceived,
    SessionEnded,
    TurnStarted,
)
from tracer.trace.hooks import loop_turn_line, needs_follow_up_line
from tracer.trace.message_record import message_event


@dataclass(frozen=True, slots=True)
class State:
    """What carries from one turn to the next. Each turn builds a whole new one."""

    messages: list[Message]
    turn_count: int = 1


@dataclass(frozen=True, slots=True)
class Terminal:
    """Why the loop returned (Claude Code's ``Terminal``)."""

    reason: EndReason
    turn_count: int
    messages: list[Message]
    error: str | None = None


def needs_follow_up(blocks: list[dict[str, Any]]) -> bool:
    """Does the response ask for a tool? The only question that keeps the loop going."""
    return any(block.get("type") == "tool_use" for block in blocks)


class QueryLoop:
    """One session's loop. :meth:`run` is ``query_loop``; the rest are its steps."""

    def __init__(
        self,
        *,
        seam: ModelSeam,
        runner: ToolRunner,
        emit: Callable[[Event], Any],
        new_uuid: Callable[[], str],
        max_turns: int | None = None,
        force_follow_up: bool = False,
        send_unpatched: bool = False,
    ) -> None:
        self.runner = runner
        self.emit = emit
        self.new_uuid = new_uuid
        self.max_turns = max_turns
        self.force_follow_up = force_follow_up
        self.by_uuid: dict[str, Message] = {}
        self.resender = Resender(
            seam=seam,
            emit=emit,
            new_uuid=new_uuid,
            by_uuid=self.by_uuid,
            record=self._record,
            send_unpatched=send_unpatched,
        )
        self._turn = 0

    def _emit(self, cls: type[Event], **fields: Any) -> Any:
        return self.emit(cls(turn=self._turn, **fields))

    def _record(self, *messages: Message) -> None:
        for message in messages:
            self.by_uuid[message.uuid] = message
            self.emit(message_event(message, self._turn))

    def run(self, messages: list[Message]) -> Terminal:
        self._record(*messages)
        state = State(messages=list(messages), turn_count=1)
        while True:
            self._turn = self.runner.turn = self.resender.turn = turn = state.turn_count
            self._emit(TurnStarted, message_count=len(state.messages))
            self._emit(DebugHook, hook="loop_turn", line=loop_turn_line(turn, len(state.messages)))

            messages_for_query = state.messages
            try:
                response = self.resender.call_model(messages_for_query)
            except ModelError as exc:
                return self._end_with_model_error(messages_for_query, str(exc))

            assistant_messages = create_assistant_messages(
                response.message_id, response.blocks, new_uuid=self.new_uuid
            )
            self._record(*assistant_messages)
            self._emit(
                ResponseReceived,
                request_index=self.resender.request_index,
                message_id=response.message_id,
                model=response.model,
                stop_reason=response.stop_reason,
                usage=response.usage,
                assistant_uuids=[m.uuid for m in assistant_messages],
                latency_ms=response.latency_ms,
                attempts=response.attempts,
            )

            calls = tool_calls(assistant_messages)
            follow_up = needs_follow_up(response.blocks) or self.force_follow_up
            self._emit(
                FollowUpDecided,
                needs_follow_up=follow_up,
                tool_use_ids=[c.tool_use_id for c in calls],
                stop_reason=response.stop_reason,
                forced=True if self.force_follow_up and not calls else None,
            )
            line = needs_follow_up_line(follow_up, len(calls))
            self._emit(DebugHook, hook="needs_follow_up", line=line)
            if not follow_up:
                return self._end("completed", turn, [*messages_for_query, *assistant_messages])

            tool_results = self.runner.run_tools(calls)
            self.by_uuid.update((m.uuid, m) for m in tool_results)  # the runner recorded them
            if self.runner.aborted:
                interruption = create_user_message(
                    INTERRUPT_MESSAGE_FOR_TOOL_USE, new_uuid=self.new_uuid, origin="synthetic"
                )
                self._record(interruption)
                history = [*messages_for_query, *assistant_messages, *tool_results, interruption]
                return self._end("aborted_tools", turn, history)

            # The results were already handed to the caller (the runner recorded them), so the
            # transcript holds them whatever happens next. query.ts checks the limit *before* it
            # builds the next State: past the limit, no next state (and no appending) exists.
            next_turn_count = turn + 1
            exceeded = self.max_turns is not None and next_turn_count > self.max_turns
            self._emit(
                MaxTurnsChecked,
                next_turn_count=next_turn_count,
                max_turns=self.max_turns,
                exceeded=exceeded,
            )
            if exceeded:
                reached = create_attachment_message(
                    {
                        "type": "max_turns_reached",
                        "maxTurns": self.max_turns,
                        "turnCount": next_turn_count,
                    },
                    new_uuid=self.new_uuid,
                )
                self._record(reached)
                transcript = [*messages_for_query, *assistant_messages, *tool_results, reached]
                return self._end("max_turns", next_turn_count, transcript)

            next_messages = [*messages_for_query, *assistant_messages, *tool_results]
            self._emit(
                HistoryAppended,
                before_count=len(messages_for_query),
                after_count=len(next_messages),
                new_uuids=[m.uuid for m in (*assistant_messages, *tool_results)],
                assistant_count=len(assistant_messages),
                tool_result_count=len(tool_results),
                api_before_count=len(normalize_messages_for_api(messages_for_query)),
                api_after_count=len(normalize_messages_for_api(next_messages)),
            )
            state = State(messages=next_messages, turn_count=next_turn_count)

    # -- endings -------------------------------------------------------------------------------

    def _end(
        self, reason: EndReason, turn_count: int, history: list[Message], error: str | None = None
    ) -> Terminal:
        self._emit(
            SessionEnded,
            reason=reason,
            turn_count=turn_count,
            message_count=len(history),
            error=error,
        )
        return Terminal(reason, turn_count, history, error)

    def _end_with_model_error(self, messages: list[Message], error: str) -> Terminal:
        """The request failed for good (after the SDK's retries): end the loop on an API error.

        2.1.88's ``queryModel`` (``claude.ts``) does not throw here: it yields an assistant
        message ``API Error: …`` (``getAssistantMessageFromError``), that turn has no
        ``tool_use``, and ``query.ts`` returns ``{ reason: 'completed' }`` because the last
        message is an API error (stop hooks skipped). The internal list is left as it is: the
        synthetic results of ``yieldMissingToolResultBlocks`` belong to the path where the model
        call throws (2.1.88's ``model_error``), not to this one. tracer records the same
        assistant message, but names the end ``model_error`` so that the replay, the doctor and
        the exports can tell a failed request from a finished answer; its texts say that 2.1.88
        returns ``completed`` here.
        """
        notice = create_api_error_message(f"API Error: {error}", new_uuid=self.new_uuid)
        self._record(notice)
        return self._end("model_error", self._turn, [*messages, notice], error)


def query_loop(
    messages: list[Message],
    *,
    seam: ModelSeam,
    runner: ToolRunner,
    emit: Callable[[Event], Any],
    new_uuid: Callable[[], str],
    max_turns: int | None = None,
    force_follow_up: bool = False,
    send_unpatched: bool = False,
) -> Terminal:
    """Run the loop from ``messages`` (prompt and attachments) until it returns."""
    loop = QueryLoop(
        seam=seam,
        runner=runner,
        emit=emit,
        new_uuid=new_uuid,
        max_turns=max_turns,
        force_follow_up=force_follow_up,
        send_unpatched=send_unpatched,
    )
    return loop.run(messages)
