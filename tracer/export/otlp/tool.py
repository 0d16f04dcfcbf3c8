"""The ``execute_tool <name>`` spans: one per tool call, with the journey's first steps on it.

A tool's span hangs under its loop's agent span, as in Claude Code, where ``runTools`` in
``query.ts`` runs the calls between two model calls. It runs from the call's start (a recording's
``tool_start``; an import has only the run, so its duration counts back from there) to its run,
and never starts before the ``chat`` span that asked for it. With content on it carries the
arguments and ``gen_ai.tool.call.result``: the ``content`` the model was sent (the mapped block),
not the tool's raw output, since that is what the chapter follows back to the model.

The mapping step is an event on this span (:func:`mapped`); the walk in
:mod:`~tracer.export.otlp.walker` adds wrapping, appending and resending as it meets them.
"""

from __future__ import annotations

from typing import Any

from tracer.export.otlp.chat import Context
from tracer.export.otlp.content import result_text
from tracer.export.otlp.spans import SPAN_KIND_INTERNAL, attrs, error, span, step_event, to_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import ResultMapped, ToolFinished, ToolStarted


def ran(
    ctx: Context,
    parent: str,
    run: ToolFinished,
    start: ToolStarted | ToolFinished,
    n: int,
    asking: dict[str, Any] | None,
    description: str | None,
) -> dict[str, Any]:
    """The span of a call's ``n``-th run (``tool_run`` ``run``, begun at ``start``).

    ``asking`` is the chat span whose answer asked for the call, when the walk has seen it.
    """
    begin = ctx.at(start, -(run.duration_ms or 0) if start is run else 0)
    if asking is not None:
        begin = max(begin, asking["startTimeUnixNano"])  # not before the model asked for it
        if start is run and not run.duration_ms:  # an import: it ran once the answer was in
            begin = max(begin, asking["endTimeUnixNano"])
    key = f"tool:{run.tool_use_id}:{n}"
    s = span(
        ctx.ids, key, parent, f"execute_tool {run.tool}", SPAN_KIND_INTERNAL, begin, ctx.at(run)
    )
    named: dict[str, Any] = {
        **ctx.common(),
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": run.tool,
        "gen_ai.tool.description": description,
        "gen_ai.tool.call.id": run.tool_use_id,
        "gen_ai.tool.type": "function",
        "openinference.span.kind": "TOOL",
        "tool.name": run.tool,
        "tracer.turn": run.turn,
        "tracer.is_error": run.is_error,
    }
    if ctx.content:
        arguments = to_json(run.input)
        named.update({"gen_ai.tool.call.arguments": arguments, "input.value": arguments})
    s["attributes"] += attrs(named)
    if run.is_error:
        error(s, str(run.error_kind or "_OTHER"), str(run.error_kind))
    return s


def mapped(ctx: Context, s: dict[str, Any], mapping: ResultMapped) -> None:
    """The mapping step on the call's span: the event, and (content on) the block's content."""
    if ctx.content:
        result = result_text(mapping.block.get("content"))
        s["attributes"] += attrs({"gen_ai.tool.call.result": result, "output.value": result})
    at = ctx.at(mapping)
    s["events"].append(step_event("mapping", at, tracer__content_length=mapping.content_length))
