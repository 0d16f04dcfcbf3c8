"""The call itself, which the trace's ``tool_run`` step records: a batch's tools, and Ctrl-C.

:class:`~tracer.agent.execution.ToolRunner` checks each call first
(:mod:`tracer.agent.tool_checks`) and maps and wraps each result after; in between,
:class:`BatchCaller`, which it mixes in, calls the tools of one batch
(:mod:`tracer.agent.tool_calls`): a lone call in the runner's own thread, several
concurrency-safe ones in a pool of at most ``MAX_PARALLEL_TOOLS`` threads, as ``runTools`` in
Claude Code's ``services/tools/toolOrchestration.ts`` runs a safe batch. A tool that raises does
not end the loop: a :class:`~tracer.agent.tools.ToolFailure` carries the text the tool chose for
its block; any other exception becomes a plain ``is_error`` block without the
``<tool_use_error>`` tag, as the catch around ``tool.call()`` in ``toolExecution.ts`` formats
it. Whatever a tool printed is redacted here, before the mapping, so that a secret reaches
neither the trace, nor a persisted file, nor the model.

Ctrl-C during a batch kills the commands still running and gives every unfinished call
``User rejected tool use`` for its ``toolUseResult`` and :data:`INTERRUPT_MESSAGE_FOR_TOOL_USE`
(the text of Claude Code's ``createUserInterruptionMessage`` for a tool use) for its block; the
turn ends there. A session total that runs out (:mod:`tracer.agent.totals`) ends it too.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tracer.agent.tool_calls import MAX_PARALLEL_TOOLS, ToolCall
from tracer.agent.tool_checks import Outcome, error_block
from tracer.agent.tools import Tool, ToolContext, ToolFailure

INTERRUPT_MESSAGE_FOR_TOOL_USE = "[Request interrupted by user for tool use]"


class BatchCaller:
    """Calls a batch's tools; mixed into :class:`~tracer.agent.execution.ToolRunner`, the
    dataclass that holds the attributes named here."""

    tools: dict[str, Tool]
    ctx: ToolContext
    aborted: bool

    def _call_all(self, runnable: list[tuple[ToolCall, Outcome]]) -> None:
        try:
            if len(runnable) == 1:
                self._call_one(*runnable[0])
            else:
                with ThreadPoolExecutor(max_workers=MAX_PARALLEL_TOOLS) as pool:
                    for future in [pool.submit(self._call_one, c, o) for c, o in runnable]:
                        future.result()
        except KeyboardInterrupt:
            self._interrupt(runnable)
        if self.ctx.stopped:
            # A total was passed (tracer.agent.totals): the turn ends here, and the session.
            self.aborted = True

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
            outcome.error_block = error_block(text)
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
                outcome.error_block = error_block(INTERRUPT_MESSAGE_FOR_TOOL_USE)
                outcome.error_kind = "interrupted"
