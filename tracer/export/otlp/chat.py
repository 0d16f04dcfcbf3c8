"""The ``chat <model>`` spans: one per request, answered or not.

A request's span runs from the moment the call began (the response event is written when the
answer is in, ``latency_ms`` after) to its answer. It carries the request's parameters, the
server, the usage with cache, the finish reason, the reply and, as opt-in content, what the
request sent (:class:`Sent`, taken from :class:`~tracer.export.otlp.content.History` when the
``request`` event is read). A request that got no answer (the API refused it, every attempt
failed, the trace stops mid-request) still gets its span, with ``error.type`` and status ERROR:
in Claude Code the loop ends there (``query.ts`` yields the API error and returns
``model_error``), and a backend should show that red, not a session that merely stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracer.export.otlp import content as oc
from tracer.export.otlp.openinference import openinference
from tracer.export.otlp.spans import (
    PROVIDER,
    SPAN_KIND_CLIENT,
    Ids,
    attrs,
    error,
    error_type,
    output_messages,
    span,
    step_event,
    to_json,
)
from tracer.trace.tokens import count

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import (
        AnyEvent,
        HttpAttempt,
        RequestSent,
        ResponseReceived,
        SessionEnded,
    )


@dataclass
class Context:
    """What every span of one export shares: ids, the time base, whether content goes along."""

    ids: Ids
    base: int
    content: bool
    conversation: str
    server: str | None

    def at(self, event: AnyEvent, offset_ms: float = 0) -> int:
        return self.base + round(float(event.t or 0.0) * 1e9) + round(offset_ms * 1e6)

    def common(self) -> dict[str, Any]:
        return {"gen_ai.provider.name": PROVIDER, "gen_ai.conversation.id": self.conversation}


@dataclass
class Sent:
    """What one request sent, as the export needs it (messages only when content is on)."""

    params: dict[str, Any]
    messages: list[dict[str, Any]] | None = None
    added: list[dict[str, Any]] | None = None
    system: list[dict[str, Any]] | None = None
    params_attributes: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def of(history: oc.History, content: bool) -> Sent:
        if not content:
            return Sent(dict(history.params))
        return Sent(
            dict(history.params),
            history.window(),
            history.added(),
            history.system,
            history.params_attributes,
        )


def _span(
    ctx: Context, parent: str, request: RequestSent, start: int, end: int, model: str
) -> dict[str, Any]:
    key = f"chat:{request.request_index}"
    s = span(ctx.ids, key, parent, f"chat {model}", SPAN_KIND_CLIENT, start, end)
    s["events"].append(
        step_event(
            "resending",
            start,
            tracer__prefix_len=request.prefix_len,
            tracer__new_messages=len(request.tail),
        )
    )
    return s


def _request_attrs(ctx: Context, request: RequestSent, sent: Sent, model: str) -> dict[str, Any]:
    params = sent.params
    named: dict[str, Any] = {
        **ctx.common(),
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": params.get("model") or model,
        "gen_ai.request.max_tokens": params.get("max_tokens"),
        "gen_ai.request.temperature": params.get("temperature"),
        "server.address": ctx.server,
        "openinference.span.kind": "LLM",
        "llm.model_name": model,
        "llm.provider": PROVIDER,
        "tracer.turn": request.turn,
        "tracer.request.index": request.request_index,
        "tracer.request.bytes": request.bytes,
        "tracer.request.message_count": request.message_count,
    }
    if sent.messages is not None:
        named["gen_ai.input.messages"] = to_json(sent.messages)
        named.update(sent.params_attributes)
        # Phoenix's Input panel: what this request added; the Messages view has them all.
        named["input.value"] = to_json(sent.added or [])
        named["input.mime_type"] = "application/json"
        named.update(openinference("llm.input_messages", sent.messages, sent.system))
    return named


def answered(
    ctx: Context,
    parent: str,
    request: RequestSent,
    response: ResponseReceived,
    sent: Sent,
    blocks: list[Any],
) -> dict[str, Any]:
    """The span of a request that got its answer; ``blocks`` are the answer's content blocks."""
    usage = response.usage if isinstance(response.usage, dict) else {}
    # Only counts are counted: a trace is someone's file, and a usage field may hold anything.
    cache_read = count(usage.get("cache_read_input_tokens"))
    cache_write = count(usage.get("cache_creation_input_tokens"))
    total_in = (count(usage.get("input_tokens")) or 0) + (cache_read or 0) + (cache_write or 0)
    asked = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks)
    finish = response.stop_reason or ("tool_use" if asked else "end_turn")
    start = ctx.at(response, -(response.latency_ms or 0))
    s = _span(ctx, parent, request, start, ctx.at(response), response.model)
    named = _request_attrs(ctx, request, sent, response.model)
    named.update(
        {
            "gen_ai.response.model": response.model,
            "gen_ai.response.id": response.message_id,
            "gen_ai.usage.input_tokens": total_in,
            "gen_ai.usage.output_tokens": count(usage.get("output_tokens")) or 0,
            "gen_ai.usage.cache_read.input_tokens": cache_read,
            "gen_ai.usage.cache_creation.input_tokens": cache_write,
            "gen_ai.response.finish_reasons": [finish],
            "tracer.finish_reason_inferred": None if response.stop_reason else True,
            "tracer.attempts": response.attempts if response.attempts > 1 else None,
        }
    )
    if ctx.content:
        out = output_messages(blocks, finish)
        named["gen_ai.output.messages"] = to_json(out)
        texts = [p.get("content", "") for p in out[0]["parts"] if p["type"] == "text"]
        named["output.value"] = "\n".join(texts) or to_json(out)
        named.update(openinference("llm.output_messages", out))
    s["attributes"] += attrs(named)
    return s


def failed(
    ctx: Context,
    parent: str,
    request: RequestSent,
    sent: Sent,
    attempts: list[HttpAttempt],
    ended: SessionEnded | None,
    model: str,
) -> dict[str, Any]:
    """The span of a request that got no answer: refused, failed, or cut off. It says why."""
    last = attempts[-1] if attempts else None
    end_event = last or ended or request
    text = (last.error if last is not None else None) or getattr(ended, "error", None)
    status = last.status if last is not None else None
    model = str(sent.params.get("model") or model)
    s = _span(ctx, parent, request, ctx.at(request), ctx.at(end_event), model)
    named = _request_attrs(ctx, request, sent, model)
    named["http.response.status_code"] = status
    named["tracer.attempts"] = len(attempts) or None
    s["attributes"] += attrs(named)
    error(s, error_type(text, status), text or "no answer: the trace ends before the response")
    return s
