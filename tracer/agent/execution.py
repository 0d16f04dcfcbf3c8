"""Running the tools a response asked for, and stations 1 and 2 of the journey.

Mirrors Claude Code's ``services/tools/toolExecution.ts`` (``checkPermissionsAndCallTool``,
``addToolResult``) and ``toolOrchestration.ts`` (``runTools``). For each ``tool_use`` block, in the
order the model asked:

1. find the tool, check the input against its schema, then the tool's own ``validate_input``
   (:mod:`~tracer.agent.tool_checks`);
2. ask :mod:`~tracer.agent.permissions`;
3. run it: consecutive concurrency-safe calls (Read, Glob, Grep, read-only Bash) as one parallel
   batch, every other call alone (:mod:`~tracer.agent.tool_calls`, :mod:`~tracer.agent.tool_run`);
4. **mapping**: the tool turns its raw output into a ``tool_result`` block, which
   :mod:`~tracer.agent.results` checks for size and emptiness;
5. **wrapping**: :meth:`ToolRunner.add_tool_result` puts the block (and any permission feedback)
   in a user message with ``create_user_message`` and pushes it: the message goes into the
   trace at once (:mod:`~tracer.trace.message_record`) and back to the loop.

A failure at any step is data, not a crash: it becomes an ``is_error`` result and the loop goes on.
Results are pushed in the model's order however the batch finished.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.agent.faults import Faults
from tracer.agent.permissions import Permissions
from tracer.agent.results import ProcessedBlock, process_pre_mapped_tool_result_block
from tracer.agent.sizes import cut_error_text
from tracer.agent.tool_calls import ToolCall, partition_tool_calls
from tracer.agent.tool_checks import (
    Outcome,
    cancelled,
    check_input,
    refused_by,
)
from tracer.agent.tool_run import BatchCaller
from tracer.agent.tools import Tool, ToolContext
from tracer.model.internal_messages import Message, content_length, create_user_message
from tracer.trace.events import (
    DebugHook,
    Event,
    PermissionDecided,
    ResultMapped,
    ResultWrapped,
    ToolFinished,
    ToolStarted,
)
from tracer.trace.hooks import tool_result_line
from tracer.trace.message_record import ResultRefs, message_event


@dataclass
class ToolRunner(BatchCaller):
    """One session's tool runs: the loop hands it each turn's calls (:meth:`run_tools`); the
    calls themselves are :class:`~tracer.agent.tool_run.BatchCaller`'s."""

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
        for batch_no, batch in enumerate(partition_tool_calls(calls, self.tools), start=1):
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

    # -- before the call ---------------------------------------------------------------------

    def _prepare(self, call: ToolCall) -> Outcome:
        """The checks of :mod:`~tracer.agent.tool_checks`, then the permission decision."""
        if self.aborted:
            return cancelled()
        tool = self.tools.get(call.name)
        refusal = check_input(tool, call.name, call.input, self.ctx)
        if refusal is not None:
            return refusal
        assert tool is not None
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
            return refused_by(decision)
        return Outcome(decision=decision)

    # -- after the call: mapping and wrapping ------------------------------------------------

    def _finish(self, call: ToolCall, outcome: Outcome) -> Message | None:
        tool = self.tools.get(call.name)
        if outcome.error_block is not None:
            block = {**outcome.error_block, "tool_use_id": call.tool_use_id}
        else:
            assert tool is not None
            block = tool.map_result(outcome.output, call.tool_use_id)
        is_error = bool(block.get("is_error"))
        error_kind = outcome.error_kind or (_returned_error(outcome.output) if is_error else None)
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
        if error_kind in _THROWN and isinstance(block.get("content"), str):
            # 2.1.88 formats a thrown error (a ShellError too) with formatError, which cuts a
            # long text; it never reaches the size check that would persist it.
            mapped_length = len(block["content"])
            block = {**block, "content": cut_error_text(block["content"])}
            processed = ProcessedBlock(block, mapped_length)
        elif tool is not None and outcome.error_block is None:
            processed = process_pre_mapped_tool_result_block(block, tool, self.results_dir)
        else:
            processed = ProcessedBlock(block, len(str(block.get("content", ""))))
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
        refs = ResultRefs(getattr(run, "seq", None) or None, getattr(mapped, "seq", None) or None)
        # 2.1.88 calls addToolResult only after tool.call() returned: refusals, thrown errors
        # (a non-zero exit throws ShellError) and a cancelled turn build their message
        # elsewhere. An interrupted command returns (is_error set by its mapping) and so does
        # reach addToolResult.
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
        refs: ResultRefs | None = None,
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
        refs = refs or ResultRefs()
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


__all__ = [
    "ToolRunner",
]


_THROWN = frozenset({"exit_code", "exception"})
"""Error kinds 2.1.88 builds in the catch of ``toolExecution.ts``, through ``formatError``."""


def _returned_error(output: Any) -> str:
    """The kind of an error result built from what the tool returned: a command cut off
    (Bash's ``interrupted``, which 2.1.88 returns normally), or a non-zero exit (which 2.1.88's
    Bash throws as a ``ShellError``)."""
    if isinstance(output, dict) and output.get("interrupted"):
        return "command_interrupted"
    return "exit_code"
