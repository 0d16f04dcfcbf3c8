"""The steps of one imported tool result: ``tool_run``, **mapping**, the message, **wrapping**.

In Claude Code a tool's output is mapped to a ``tool_result`` block (each tool's
``mapToolResultToToolResultBlockParam``), and the block is wrapped in a user message that names
the assistant message holding the call (``sourceToolAssistantUUID``); the chapter's journey has
these as the ``tool_run``, ``mapping`` and ``wrapping`` steps. A source keeps only the end of
that journey, the block and its message, so :class:`ToolResultSteps` writes the steps back from
them: the raw output where the source kept it (a transcript's ``toolUseResult``), the block as
it was sent, the wrapped message once, and the ``Tool result`` hook.

Nothing a source does not tell is made up: there is no ``tool_start`` (nobody logged when a tool
started), and a permission step only when the user visibly refused. Why a result is an error is
guessed from the text the model was told (:func:`error_kind`), as the sources keep no reason.
"""

from __future__ import annotations

from tracer.importers.steps import StepWriter
from tracer.model.internal_messages import Message, content_length
from tracer.trace.events import (
    DebugHook,
    PermissionDecided,
    ResultMapped,
    ResultWrapped,
    ToolFinished,
)
from tracer.trace.hooks import tool_result_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REJECTED_PREFIX = "The user doesn't want to proceed with this tool use"


def error_kind(block: dict[str, Any], output: Any, text: str | None = None) -> str | None:
    """Guess why a result is an error from what the model was told (sources keep no reason).
    ``text`` is the block's :func:`block_text`, when the caller has it already."""
    if not block.get("is_error"):
        return None
    if text is None:
        text = block_text(block)
    if output == "User rejected tool use" or text.startswith(REJECTED_PREFIX):
        return "permission"
    if text.startswith("Exit code"):
        return "exit_code"
    if "Sibling tool call errored" in text or "interrupted" in text.lower():
        return "aborted"
    return "tool_error"


def block_text(block: dict[str, Any]) -> str:
    """A tool_result's content as plain text (list content joined)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


class ToolResultSteps(StepWriter):
    """Writes the steps one ``tool_result`` block went through."""

    def tool_result(
        self,
        tid: str,
        tool: str,
        tool_input: Any,
        block: dict[str, Any],
        message: Message,
        output: Any,
        assistant_uuid: str,
        feedback: str | None = None,
        duration_ms: int | None = None,
    ) -> None:
        """``tool_run``, mapping, the wrapped message, wrapping and the ``Tool result`` hook of
        one ``tool_result`` block (of ``message``, the user message that wrapped it), answering
        the ``tool_use`` ``tid`` held by the assistant message ``assistant_uuid``. ``output``
        is the tool's raw output where the source kept it, else the block's content.

        Its parts come one by one, not as one object: an import calls this for every result.
        Each step's event is built in place (see :meth:`StepWriter._emit`), and what several
        steps need of the block (its text, its length) is worked out once."""
        content = block.get("content")
        text = block_text(block)
        is_error = block.get("is_error")
        kind = error_kind(block, output, text)
        if kind == "permission":
            self._emit(
                PermissionDecided,
                tool_use_id=tid,
                tool=tool,
                decision="reject",
                source="prompt",
                feedback=feedback,
                message=text,
            )
        emit, turn, t = self.emit, self.turn, self.t
        self.events += 1
        run = emit(
            ToolFinished.new(
                seq=self.events,
                turn=turn,
                t=t,
                tool_use_id=tid,
                tool=tool,
                input=tool_input,
                output=output,
                is_error=bool(is_error),
                error_kind=kind,
                duration_ms=duration_ms,
            )
        )
        length = content_length(content)
        self.events += 1
        mapped = emit(
            ResultMapped.new(
                seq=self.events,
                turn=turn,
                t=t,
                tool_use_id=tid,
                tool=tool,
                block=block,
                content_length=length,
                mapped_length=len(text),
                persisted={"preview": True} if text.startswith("<persisted-output>") else None,
                # The message is only built for a text that could be it (most are not).
                empty_replaced=(
                    text[:1] == "(" and text.startswith(f"({tool} completed with no output)")
                )
                or None,
            )
        )
        if message.uuid not in self.by_uuid:
            # Only the first result of a message owns the raw output (one toolUseResult each).
            held = message.content
            self.record(
                (message,),
                raw_seq=getattr(run, "seq", None) or None
                if output is message.tool_use_result
                else None,
                # Only a block that comes first can be pointed at: feedback may precede it.
                block_seq=getattr(mapped, "seq", None) or None
                if isinstance(held, list) and held and held[0] is block
                else None,
            )
            t = self.t  # recording the message can move the clock on
        self.events += 1
        emit(
            ResultWrapped.new(
                seq=self.events,
                turn=turn,
                t=t,
                tool_use_id=tid,
                tool=tool,
                message_uuid=message.uuid,
                source_tool_assistant_uuid=assistant_uuid,
                feedback=feedback,
            )
        )
        self.events += 1  # _hook, in place (see StepWriter._emit)
        emit(
            DebugHook.new(
                seq=self.events,
                turn=turn,
                t=t,
                hook="tool_result",
                line=tool_result_line(tool, block, length),
            )
        )
