"""The calls a response asks for, and the batches they run in.

Each ``tool_use`` block of a response becomes a :class:`ToolCall`, which remembers the uuid of
the assistant message that holds it: the wrapped result names that message as its
``sourceToolAssistantUUID``. :func:`partition_tool_calls` mirrors ``partitionToolCalls`` in
Claude Code's ``services/tools/toolOrchestration.ts``, which ``runTools`` uses when the streaming
executor is off: consecutive concurrency-safe calls run as one parallel batch (at most
``MAX_PARALLEL_TOOLS``, ``CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY``'s default), every other call
alone, the batches one after another in the model's order.

Whether a call is safe is the tool's to say (``isConcurrencySafe``; the default is no): Read, Glob
and Grep are, Bash only for a read-only command, Edit and Write never. A call whose input does not
even fit the tool's schema is treated as unsafe, as in Claude Code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tracer.agent.tools import Tool, schema_issues
from tracer.model.internal_messages import Message

MAX_PARALLEL_TOOLS = 10


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One ``tool_use`` block, and the uuid of the assistant message that holds it."""

    tool_use_id: str
    name: str
    input: Any
    assistant_uuid: str


def tool_calls(assistant_messages: Iterable[Message]) -> list[ToolCall]:
    """Every ``tool_use`` block of a response, in the order the model wrote them."""
    return [
        ToolCall(b["id"], b["name"], b.get("input"), m.uuid)
        for m in assistant_messages
        for b in m.tool_uses()
    ]


def is_concurrency_safe(tool: Tool | None, tool_input: Any) -> bool:
    """May this call run beside others? Unknown tools and unparsable input may not."""
    return (
        tool is not None
        and not schema_issues(tool.input_schema, tool_input)
        and tool.is_concurrency_safe(tool_input)
    )


def partition_tool_calls(calls: list[ToolCall], tools: dict[str, Tool]) -> list[list[ToolCall]]:
    """Consecutive concurrency-safe calls share a batch; any other call is a batch alone."""
    batches: list[tuple[bool, list[ToolCall]]] = []
    for call in calls:
        safe = is_concurrency_safe(tools.get(call.name), call.input)
        if safe and batches and batches[-1][0]:
            batches[-1][1].append(call)
        else:
            batches.append((safe, [call]))
    return [batch for _, batch in batches]
