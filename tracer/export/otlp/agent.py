"""The ``invoke_agent`` spans: the session's loop, and each subagent's loop inside a Task call.

A loop's span covers its chat and tool spans. It says how the loop ended, the way
``query.ts`` names it (``tracer.terminal_reason``, and ``gen_ai.response.finish_reasons``):
status ERROR when the loop ended in an error (``model_error``), and marked, not failed, when the
user interrupted it (``aborted_tools``, ``aborted_streaming``: ``tracer.interrupted``) or the
``max_turns`` limit stopped it (``tracer.max_turns_reached``). Its output is the loop's final
answer, the text of its last response; a subagent's final answer is also what its Task call
returned to the parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracer.export.otlp.chat import Context
from tracer.export.otlp.spans import (
    SPAN_KIND_INTERNAL,
    attrs,
    error,
    error_type,
    output_messages,
    span,
    to_json,
)
from tracer.export.walk import usage_totals

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import AnyEvent, SessionEnded, SessionStarted, SubagentStarted

ERROR_ENDINGS = ("model_error",)
INTERRUPTED = ("aborted_tools", "aborted_streaming")


@dataclass
class Loop:
    """One agent loop being walked: the main one, or a subagent inside a Task call."""

    span: dict[str, Any]
    tool_use_id: str | None = None
    last_text: list[Any] = field(default_factory=list)
    ended: SessionEnded | None = None

    @property
    def id(self) -> str:
        return str(self.span["spanId"])


def opened(
    ctx: Context, parent: str | None, key: str, start: SubagentStarted | None, call: Any, at: int
) -> Loop:
    """A loop's span: the session's (``start`` None) or a subagent's (its ``subagent_start``,
    and ``call`` the input of the Task call that ran it, which names the subagent's type)."""
    kind = call.get("subagent_type") if isinstance(call, dict) else None
    name = "tracer" if start is None else str(kind or "subagent")
    s = span(ctx.ids, key, parent, f"invoke_agent {name}", SPAN_KIND_INTERNAL, at, at)
    named = {
        **ctx.common(),
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": name,
        "openinference.span.kind": "AGENT",
    }
    if start is not None:
        named["tracer.subagent.loop"] = start.loop
        named["tracer.subagent.depth"] = start.depth
        if ctx.content and start.prompt:
            named["input.value"] = start.prompt
    s["attributes"] += attrs(named)
    return Loop(s, None if start is None else start.tool_use_id)


def set_up(ctx: Context, loop: Loop, e: SessionStarted, source: dict[str, Any]) -> None:
    """What the loop's ``session_start`` says: model, request parameters, the prompt."""
    params = e.request_params or {}
    named: dict[str, Any] = {
        "gen_ai.request.model": e.model,
        "gen_ai.request.max_tokens": params.get("max_tokens"),
        "gen_ai.request.temperature": params.get("temperature"),
        "server.address": ctx.server,
    }
    if loop.tool_use_id is None:
        named.update({"tracer.source": source.get("kind"), "tracer.chapter.scenario": e.scenario})
        if ctx.content:
            named["input.value"] = e.prompt
    loop.span["attributes"] += attrs(named)


def closed(
    ctx: Context, loop: Loop, last: AnyEvent | None, totals: dict[str, Any] | None = None
) -> None:
    """The loop is over: its end time, how it ended, its final answer (``totals``: the
    session's usage and turns, for the main loop)."""
    s, ended = loop.span, loop.ended
    if last is not None:
        s["endTimeUnixNano"] = max(s["endTimeUnixNano"], ctx.at(last))
    named: dict[str, Any] = dict(totals or {})
    if ended is not None:
        reason = ended.reason
        named["tracer.terminal_reason"] = reason
        named["gen_ai.response.finish_reasons"] = [reason]
        named["tracer.interrupted"] = True if reason in INTERRUPTED else None
        named["tracer.max_turns_reached"] = True if reason == "max_turns" else None
        ending = attrs(tracer__terminal_reason=reason, tracer__turns=ended.turn_count)
        s["events"].append(
            {"timeUnixNano": ctx.at(ended), "name": "terminal", "attributes": ending}
        )
        if reason in ERROR_ENDINGS:
            error(s, error_type(ended.error, None), ended.error or reason)
    if ctx.content and loop.last_text:
        named["output.value"] = "\n".join(str(b.get("text", "")) for b in loop.last_text)
        named["gen_ai.output.messages"] = to_json(output_messages(loop.last_text, "end_turn"))
    s["attributes"] += attrs(named)


def session_totals(events: list[Any], turns: int) -> dict[str, Any]:
    """The whole session's usage (every response once, subagents' included) and turns."""
    inp, out = usage_totals(events)
    return {
        "gen_ai.usage.input_tokens": inp,
        "gen_ai.usage.output_tokens": out,
        "tracer.turns": turns,
    }
