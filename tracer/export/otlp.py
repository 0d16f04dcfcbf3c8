"""``tracer export --format otlp-json``: a session as OpenTelemetry spans (OTLP/JSON).

The spans follow the OpenTelemetry GenAI semantic conventions, the names and attributes GenAI
instrumentations (the ``anthropic`` SDK's included) use, so Jaeger, Langfuse or Phoenix can show
a trace without knowing tracer:

* one ``invoke_agent`` span for the session (``gen_ai.operation.name = invoke_agent``);
* one ``chat <model>`` span per request (resending → response), child of the agent span, with
  ``gen_ai.request.model``, ``gen_ai.response.id``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens`` and ``gen_ai.response.finish_reasons``;
* one ``execute_tool <name>`` span per tool call with ``gen_ai.tool.name`` and
  ``gen_ai.tool.call.id``; its span events are the chapter's stations (mapping, wrapping).

Ids are hex (32 digits for a trace, 16 for a span) as OTLP/JSON asks, derived from a hash of the
trace, so exporting the same trace twice gives the same ids.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from tracer import __version__
from tracer.export.walk import Walk, usage_totals

SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list | tuple):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    return {"stringValue": v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}


def _attrs(**attrs: Any) -> list[dict[str, Any]]:
    return [{"key": k.replace("__", "."), "value": _value(v)} for k, v in attrs.items()
            if v is not None]


class _Ids:
    """Deterministic ids: hashes of the trace's identity and a span's role in it."""

    def __init__(self, w: Walk) -> None:
        seed = json.dumps([w.header.get("created"), w.header.get("source")], sort_keys=True,
                          ensure_ascii=False, default=str)
        self.trace = hashlib.sha256(seed.encode()).hexdigest()[:32]

    def span(self, key: str) -> str:
        digest = hashlib.sha256(f"{self.trace}:{key}".encode()).hexdigest()[:16]
        return digest if digest.strip("0") else "0000000000000001"


def _base_ns(w: Walk) -> int:
    created = str(w.header.get("created") or "1970-01-01T00:00:00Z")
    try:
        return int(datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()) * 10**9
    except ValueError:
        return 0


def render(w: Walk) -> str:
    ids = _Ids(w)
    base = _base_ns(w)

    def at(event: Any, offset_ms: int = 0) -> str:
        return str(base + round(float(event.t or 0.0) * 1e9) + offset_ms * 10**6)

    session = w.session
    model = session.model if session is not None else "unknown"
    root = ids.span("invoke_agent")
    spans: list[dict[str, Any]] = []
    pending_request: Any = None
    tool_spans: dict[str, dict[str, Any]] = {}
    starts: dict[str, Any] = {}
    for e in w.events:
        k = e.kind
        if k == "request":
            pending_request = e
        elif k == "response" and pending_request is not None:
            spans.append(_chat(w, ids, root, pending_request, e, at))
            pending_request = None
        elif k == "tool_start":
            starts[e.tool_use_id] = e
        elif k == "tool_run":
            start = starts.get(e.tool_use_id, e)
            offset = -(e.duration_ms or 0) if start is e else 0
            span = {
                "traceId": ids.trace, "spanId": ids.span(f"tool:{e.tool_use_id}:{e.seq}"),
                "parentSpanId": root, "name": f"execute_tool {e.tool}",
                "kind": SPAN_KIND_INTERNAL, "startTimeUnixNano": at(start, offset),
                "endTimeUnixNano": at(e),
                "attributes": _attrs(gen_ai__operation__name="execute_tool",
                                     gen_ai__provider__name="anthropic",
                                     gen_ai__tool__name=e.tool,
                                     gen_ai__tool__call__id=e.tool_use_id,
                                     gen_ai__tool__type="function", tracer__turn=e.turn,
                                     error__type=e.error_kind if e.is_error else None),
                "events": [], "status": {"code": STATUS_ERROR, "message": str(e.error_kind)}
                if e.is_error else {},
            }
            tool_spans[e.tool_use_id] = span
            spans.append(span)
        elif k in ("mapping", "wrapping") and e.tool_use_id in tool_spans:
            detail = (_attrs(tracer__content_length=e.content_length) if k == "mapping"
                      else _attrs(tracer__message_uuid=e.message_uuid))
            tool_spans[e.tool_use_id]["events"].append(
                {"timeUnixNano": at(e), "name": f"tracer.{k}", "attributes": detail})
    inp, out = usage_totals(w.events)
    end = next((e for e in reversed(w.events) if e.kind == "terminal"), w.events[-1] if w.events
               else None)
    src = w.header.get("source") or {}
    agent = {
        "traceId": ids.trace, "spanId": root, "name": "invoke_agent tracer",
        "kind": SPAN_KIND_INTERNAL, "startTimeUnixNano": str(base),
        "endTimeUnixNano": at(end) if end is not None else str(base),
        "attributes": _attrs(gen_ai__operation__name="invoke_agent",
                             gen_ai__provider__name="anthropic", gen_ai__agent__name="tracer",
                             gen_ai__request__model=model,
                             gen_ai__conversation__id=src.get("session_id"),
                             gen_ai__usage__input_tokens=inp, gen_ai__usage__output_tokens=out,
                             tracer__source=src.get("kind"), tracer__turns=len(w.turns),
                             tracer__terminal_reason=getattr(end, "reason", None)),
        "status": {},
    }
    payload = {"resourceSpans": [{
        "resource": {"attributes": _attrs(service__name="tracer")},
        "scopeSpans": [{"scope": {"name": "tracer", "version": __version__},
                        "spans": [agent, *spans]}],
    }]}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"


def _chat(w: Walk, ids: _Ids, root: str, request: Any, response: Any, at: Any) -> dict[str, Any]:
    usage = response.usage or {}
    cache_read = usage.get("cache_read_input_tokens")
    cache_write = usage.get("cache_creation_input_tokens")
    total_in = int(usage.get("input_tokens") or 0) + int(cache_read or 0) + int(cache_write or 0)
    has_tools = any(e.kind == "follow_up" and e.needs_follow_up and e.turn == response.turn
                    for e in w.events)
    finish = response.stop_reason or ("tool_use" if has_tools else "end_turn")
    latency = response.latency_ms
    end = at(request, latency) if latency is not None else at(response)
    return {
        "traceId": ids.trace, "spanId": ids.span(f"chat:{request.request_index}"),
        "parentSpanId": root, "name": f"chat {response.model}", "kind": SPAN_KIND_CLIENT,
        "startTimeUnixNano": at(request), "endTimeUnixNano": end,
        "attributes": _attrs(gen_ai__operation__name="chat", gen_ai__provider__name="anthropic",
                             gen_ai__request__model=response.model,
                             gen_ai__response__model=response.model,
                             gen_ai__response__id=response.message_id,
                             gen_ai__usage__input_tokens=total_in,
                             gen_ai__usage__output_tokens=int(usage.get("output_tokens") or 0),
                             gen_ai__usage__cache_read__input_tokens=cache_read,
                             gen_ai__usage__cache_creation__input_tokens=cache_write,
                             gen_ai__response__finish_reasons=[finish],
                             tracer__finish_reason_inferred=None if response.stop_reason else True,
                             tracer__turn=request.turn, tracer__request__bytes=request.bytes,
                             tracer__request__message_count=request.message_count),
        "events": [{"timeUnixNano": at(request), "name": "tracer.resending",
                    "attributes": _attrs(tracer__prefix_len=request.prefix_len,
                                         tracer__new_messages=len(request.tail))}],
        "status": {},
    }
