"""Running the tools a response asked for, and stations 1 and 2 of the journey.

Mirrors Claude Code's ``services/tools/toolExecution.ts`` (``checkPermissionsAndCallTool``,
``addToolResult``) and ``toolOrchestration.ts`` (``runTools``). For each ``tool_use`` block, in the
order the model asked:

1. find the tool, check the input against its schema, then the tool's own ``validate_input``;
2. ask :mod:`~tracer.agent.permissions`;
3. run it: consecutive concurrency-safe calls (Read, Glob, Grep, read-only Bash) as one parallel
   batch, every other call alone;
4. **mapping**: the tool turns its raw output into a ``tool_result`` block, which
   :mod:`~tracer.agent.results` checks for size and emptiness;
5. **wrapping**: :meth:`ToolRunner.add_tool_result` puts the block (and any permission feedback)
   in a user message with ``create_user_message`` and pushes it.

A failure at any step is data, not a crash: it becomes an ``is_error`` result and the loop goes on.
Results are pushed in the model's order however the batch finished.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.agent.faults import Faults
from tracer.agent.messages import Message, content_length, create_user_message, tool_use_error
from tracer.agent.permissions import Decision, Permissions
from tracer.agent.results import ProcessedBlock, process_pre_mapped_tool_result_block
from tracer.agent.tools import Tool, ToolContext, ToolFailure, schema_issues
from tracer.hooks import tool_result_line
from tracer.trace.events import (
    DebugHook,
    Event,
    MessageRecorded,
    PermissionDecided,
    ResultMapped,
    ResultWrapped,
    ToolFinished,
    ToolStarted,
)

CANCEL_MESSAGE = (
    "The user doesn't want to take this action right now. STOP what you are doing and wait for "
    "the user to tell you how to proceed."
)
INTERRUPT_MESSAGE_FOR_TOOL_USE = "[Request interrupted by user for tool use]"
MAX_PARALLEL_TOOLS = 10


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One ``tool_use`` block, and the uuid of the assistant message that holds it."""

    tool_use_id: str
    name: str
    input: Any
    assistant_uuid: str


@dataclass(slots=True)
class Outcome:
    """What became of a call: the raw output, and a block when it never reached the tool."""

    output: Any = None
    error_block: dict[str, Any] | None = None
    error_kind: str | None = None
    decision: Decision | None = None
    duration_ms: int | None = None


@dataclass
class ToolRunner:
    tools: dict[str, Tool]
    ctx: ToolContext
    permissions: Permissions
    emit: Callable[[Event], Any]
    new_uuid: Callable[[], str]
    results_dir: Path | None = None
    faults: Faults = field(default_factory=Faults)
    turn: int = 0
    aborted: bool = False
    """Set by a rejection without feedback or by Ctrl-C: the turn's other calls are cancelled."""

    def _emit(self, cls: type[Event], **fields: Any) -> Any:
        return self.emit(cls(turn=self.turn, **fields))

    # -- the batch ---------------------------------------------------------------------------

    def run_tools(self, calls: list[ToolCall]) -> list[Message]:
        """Run every call; return the wrapped result messages in the model's order."""
        results: list[Message] = []
        for batch_no, batch in enumerate(self._batches(calls), start=1):
            outcomes = [self._prepare(call) for call in batch]
            runnable = [
                (c, o) for c, o in zip(batch, outcomes, strict=True) if o.error_block is None
            ]
            for call, _ in runnable:
                self._emit(
                    ToolStarted,
                    tool_use_id=call.tool_use_id,
                    tool=call.name,
                    batch=batch_no,
                    concurrent=len(runnable) > 1,
                )
            self._call_all(runnable)
            for call, outcome in zip(batch, outcomes, strict=True):
                message = self._finish(call, outcome)
                if message is not None:
                    results.append(message)
        return results

    def _batches(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Consecutive concurrency-safe calls share a batch; any other call is a batch alone."""
        batches: list[tuple[bool, list[ToolCall]]] = []
        for call in calls:
            safe = self._is_concurrency_safe(call)
            if safe and batches and batches[-1][0]:
                batches[-1][1].append(call)
            else:
                batches.append((safe, [call]))
        return [batch for _, batch in batches]

    def _is_concurrency_safe(self, call: ToolCall) -> bool:
        # As in Claude Code, a call whose input does not even parse is treated as unsafe.
        tool = self.tools.get(call.name)
        return (
            tool is not None
            and not schema_issues(tool.input_schema, call.input)
            and tool.is_concurrency_safe(call.input)
        )

    # -- before the call ---------------------------------------------------------------------

    def _prepare(self, call: ToolCall) -> Outcome:
        if self.aborted:
            return _refused(CANCEL_MESSAGE, "Error: " + CANCEL_MESSAGE, "aborted", tagged=False)
        tool = self.tools.get(call.name)
        if tool is None:
            text = f"Error: No such tool available: {call.name}"
            return _refused(text, text, "unknown_tool")
        issues = schema_issues(tool.input_schema, call.input)
        if issues:
            formatted = f"{tool.name} failed due to the following issue(s):\n" + "\n".join(issues)
            raw = json.dumps(issues, ensure_ascii=False)
            return _refused(
                f"InputValidationError: {formatted}",
                f"InputValidationError: {raw}",
                "input_validation",
            )
        if reason := tool.validate_input(call.input, self.ctx):
            return _refused(reason, f"Error: {reason}", "validate_input")
        decision = self.permissions.check(tool.name, call.input)
        self._emit(
            PermissionDecided,
            tool_use_id=call.tool_use_id,
            tool=tool.name,
            decision=decision.decision,
            source=decision.source,
            rule=decision.rule,
            feedback=decision.feedback,
            message=decision.message,
        )
        if not decision.allowed:
            self.aborted = self.aborted or decision.abort
            # Permission refusals carry no <tool_use_error> tag: the message is for the model.
            outcome = _refused(
                decision.message or "denied",
                f"Error: {decision.message}",
                "permission",
                tagged=False,
            )
            outcome.decision = decision
            return outcome
        return Outcome(decision=decision)

    # -- the call ----------------------------------------------------------------------------

    def _call_all(self, runnable: list[tuple[ToolCall, Outcome]]) -> None:
        try:
            if len(runnable) == 1:
                self._call_one(*runnable[0])
                return
            with ThreadPoolExecutor(max_workers=MAX_PARALLEL_TOOLS) as pool:
                for future in [pool.submit(self._call_one, c, o) for c, o in runnable]:
                    future.result()
        except KeyboardInterrupt:
            self._interrupt(runnable)

    def _call_one(self, call: ToolCall, outcome: Outcome) -> None:
        tool = self.tools[call.name]
        try:
            outcome.output = tool.call(call.input, self.ctx)
        except ToolFailure as failure:
            outcome.output = failure.output
            outcome.error_block = {
                "type": "tool_result",
                "content": failure.content,
                "is_error": True,
                "tool_use_id": call.tool_use_id,
            }
            outcome.error_kind = "exception"
        except Exception as exc:  # the loop never dies because of a tool
            # Claude Code formats an error thrown by tool.call() plainly, without the tag.
            text = str(exc) or type(exc).__name__
            outcome.output = f"Error: {text}"
            outcome.error_block = _error_block(text)
            outcome.error_kind = "exception"
        if isinstance(outcome.output, dict):
            outcome.duration_ms = outcome.output.pop("duration_ms", None)
        # Before mapping: a secret a tool printed reaches neither the trace, nor a persisted
        # file, nor the model.
        outcome.output = self.ctx.redact(outcome.output)
        if outcome.error_block is not None:
            outcome.error_block = self.ctx.redact(outcome.error_block)

    def _interrupt(self, running: list[tuple[ToolCall, Outcome]]) -> None:
        """Ctrl-C: every unfinished call gets the interruption result and the turn ends."""
        self.aborted = True
        self.ctx.kill_running()
        for _call, outcome in running:
            if outcome.output is None and outcome.error_block is None:
                outcome.output = "User rejected tool use"
                outcome.error_block = _error_block(INTERRUPT_MESSAGE_FOR_TOOL_USE)
                outcome.error_kind = "interrupted"

    # -- after the call: mapping and wrapping ------------------------------------------------

    def _finish(self, call: ToolCall, outcome: Outcome) -> Message | None:
        tool = self.tools.get(call.name)
        if outcome.error_block is not None:
            block = {**outcome.error_block, "tool_use_id": call.tool_use_id}
        else:
            assert tool is not None
            block = tool.map_result(outcome.output, call.tool_use_id)
        is_error = bool(block.get("is_error"))
        error_kind = outcome.error_kind or ("exit_code" if is_error else None)
        run = self._emit(
            ToolFinished,
            tool_use_id=call.tool_use_id,
            tool=call.name,
            input=call.input,
            output=outcome.output,
            is_error=is_error,
            error_kind=error_kind,
            duration_ms=outcome.duration_ms,
        )
        processed = (
            process_pre_mapped_tool_result_block(block, tool, self.results_dir)
            if tool is not None and outcome.error_block is None
            else ProcessedBlock(block, len(str(block.get("content", ""))))
        )
        final = self.faults.break_block(processed.block)
        mapped = self._emit(
            ResultMapped,
            tool_use_id=call.tool_use_id,
            tool=call.name,
            block=final,
            content_length=content_length(final.get("content")),
            mapped_length=processed.mapped_length,
            persisted=processed.persisted,
            empty_replaced=processed.empty_replaced or None,
        )
        feedback = (
            outcome.decision.feedback if outcome.decision and outcome.decision.allowed else None
        )
        # The raw output and the block are already in the trace (tool_run and mapping steps):
        # the message points at them instead of copying them.
        refs = _Refs(getattr(run, "seq", None) or None, getattr(mapped, "seq", None) or None)
        # 2.1.88 calls addToolResult only after tool.call() returned: refusals, thrown errors
        # (a non-zero exit throws ShellError) and interruptions build their message elsewhere.
        reached = outcome.error_block is None and error_kind != "exit_code"
        return self.add_tool_result(
            call, outcome.output, final, feedback, refs, reached, error_kind=error_kind
        )

    def add_tool_result(
        self,
        call: ToolCall,
        tool_use_result: Any,
        block: dict[str, Any],
        accept_feedback: str | None,
        refs: _Refs | None = None,
        reached_in_claude_code: bool = True,
        *,
        error_kind: str | None = None,
    ) -> Message | None:
        """Wrap the block in a user message and push it (the chapter's ``addToolResult``).

        ``reached_in_claude_code`` is false for a result 2.1.88 wraps without this function; the
        book's ``Tool result`` line is still recorded, marked ``tracer_only``.
        """
        content: list[dict[str, Any]] = [block]
        if accept_feedback:
            feedback = {"type": "text", "text": accept_feedback}
            # The fault feedback_first breaks the order the API demands: results first.
            content.insert(0 if self.faults.feedback_first else 1, feedback)
        message = create_user_message(
            content,
            new_uuid=self.new_uuid,
            tool_use_result=tool_use_result,
            source_tool_assistant_uuid=call.assistant_uuid,
            origin="tool_result",
        )
        if self.faults.drops(call.tool_use_id):
            return None  # the fault: resultingMessages.push() never runs
        refs = refs or _Refs()
        # The message may point at the mapping step for its first block only when that block
        # is first (feedback_first puts the text ahead of it).
        block_seq = refs.block if content[0] is block else None
        self.emit(
            message_event(message, self.turn, tool_use_result_seq=refs.raw, block_seq=block_seq)
        )
        self._emit(
            ResultWrapped,
            tool_use_id=call.tool_use_id,
            tool=call.name,
            message_uuid=message.uuid,
            source_tool_assistant_uuid=call.assistant_uuid,
            feedback=accept_feedback,
            error_kind=error_kind,
        )
        self._emit(
            DebugHook,
            hook="tool_result",
            line=tool_result_line(call.name, block),
            tracer_only=None if reached_in_claude_code else True,
        )
        return message


@dataclass(frozen=True, slots=True)
class _Refs:
    """Where a result's pieces were written: the ``tool_run`` (raw output) and ``mapping`` (block)
    events, by ``seq``. Unknown when the ``emit`` callback does not return stamped events."""

    raw: int | None = None
    block: int | None = None


def _error_block(content: str) -> dict[str, Any]:
    return {"type": "tool_result", "content": content, "is_error": True, "tool_use_id": ""}


def _refused(content: str, raw: str, kind: str, *, tagged: bool = True) -> Outcome:
    return Outcome(
        output=raw,
        error_block=_error_block(tool_use_error(content) if tagged else content),
        error_kind=kind,
    )


def message_event(
    message: Message,
    turn: int,
    tool_use_result_seq: int | None = None,
    block_seq: int | None = None,
) -> MessageRecorded:
    """The trace record of an internal message (written once; later events use its uuid).

    With ``tool_use_result_seq`` the raw output is not repeated: it is the ``output`` of that
    ``tool_run`` event; with ``block_seq`` the first content block is the ``block`` of that
    ``mapping`` event and only the blocks after it are written. The reader puts both back, so
    whoever reads a trace sees whole messages. The message's clock time is not written either:
    the event's ``t`` says when it was made.
    """
    return MessageRecorded(
        turn=turn,
        uuid=message.uuid,
        type=message.type,
        content=_rest(message.content) if block_seq else message.content,
        attachment=message.attachment,
        message_id=message.message_id,
        is_meta=message.is_meta or None,
        origin=message.origin,
        tool_use_result=None if tool_use_result_seq else message.tool_use_result,
        tool_use_result_seq=tool_use_result_seq,
        block_seq=block_seq,
        source_tool_assistant_uuid=message.source_tool_assistant_uuid,
    )


def _rest(content: Any) -> list[dict[str, Any]] | None:
    """The content after its first block (``None`` when there is nothing after it)."""
    return list(content[1:]) or None if isinstance(content, list) else None
