"""A session as OpenTelemetry spans (OTLP/JSON): ``--format otlp-json`` and ``--otlp-endpoint``.

The spans follow the OpenTelemetry GenAI semantic conventions, the names and attributes GenAI
instrumentations (the ``anthropic`` SDK's included) use, so Jaeger, Langfuse or Arize Phoenix
can show a trace without knowing tracer:

* one ``invoke_agent tracer`` span for the session (``gen_ai.operation.name = invoke_agent``,
  ``gen_ai.agent.name``, ``gen_ai.conversation.id``, the usage of the whole session);
* one ``chat <model>`` span per request (resending → response), child of the agent span, with
  ``gen_ai.request.model``, ``gen_ai.response.id``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens``, ``gen_ai.response.finish_reasons`` and ``gen_ai.output.messages``;
* one ``execute_tool <name>`` span per tool call, also a child of the agent span (as in Claude
  Code, where ``runTools`` in ``query.ts`` runs them between two model calls), with
  ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments`` and
  ``gen_ai.tool.call.result``: the ``content`` the model was sent, not the raw output.

The chapter's four stations are span events named as in the chapter, in the order one result
meets them: ``mapping``, ``wrapping`` and ``appending`` on the tool's span, then ``resending`` on
the same span *and* on the ``chat`` span of the request that carried the result back. A result
whose span has no ``resending`` event never reached the model (``05-max-turns``). Each event has
``tracer.station`` (1–4) and its Chinese name in ``tracer.station.zh``.

Phoenix files spans by OpenInference kind, so each span also has ``openinference.span.kind``
(``AGENT``, ``LLM``, ``TOOL``) and, for a tool, ``input.value`` / ``output.value``; other
backends ignore them.

One pass over the events, with dictionaries for the joins (tool span by ``tool_use_id``, by the
uuid of the message that wrapped its result, turns that asked for tools), so the export takes
time in proportion to the trace (``bench/otlp_export.py``). Ids are hex (32 digits for a trace,
16 for a span) as OTLP/JSON asks, from a hash of the trace, so exporting the same trace twice
gives the same ids; ``salt`` makes them differ, so that two people sending the same bundled
recording to one server get two traces.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from tracer import __version__
from tracer.export.walk import Walk, usage_totals
from tracer.replay.i18n import STAGE_NAMES
from tracer.trace.events import STATIONS

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
    return {"stringValue": v if isinstance(v, str) else _json(v)}


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"), default=str)


def _attrs(**attrs: Any) -> list[dict[str, Any]]:
    """OTLP attributes from keyword arguments: ``gen_ai__tool__name`` is ``gen_ai.tool.name``."""
    return [
        {"key": k.replace("__", "."), "value": _value(v)} for k, v in attrs.items() if v is not None
    ]


class _Ids:
    """Deterministic ids: hashes of the trace's identity (and a salt) and a span's role in it."""

    def __init__(self, w: Walk, salt: str = "") -> None:
        seed = _json([w.header.get("created"), w.header.get("source"), salt])
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


def _station(stage: str, at: str, **detail: Any) -> dict[str, Any]:
    """A span event for one of the four stations, named as the chapter names it."""
    number = STATIONS.index(stage) + 1
    zh = STAGE_NAMES[stage]["zh"]
    attributes = _attrs(tracer__station=number, tracer__station__zh=zh, **detail)
    return {"timeUnixNano": at, "name": stage, "attributes": attributes}


def _text(content: Any) -> str:
    """A tool_result's content as the text a backend shows: a string, or its text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and "text" in b]
        if len(parts) == len(content):
            return "\n".join(parts)
    return _json(content)


def spans(w: Walk, salt: str = "") -> list[dict[str, Any]]:
    """Every span of the session, the ``invoke_agent`` span first."""
    ids = _Ids(w, salt)
    base = _base_ns(w)

    def at(event: Any, offset_ms: int = 0) -> str:
        return str(base + round(float(event.t or 0.0) * 1e9) + offset_ms * 10**6)

    session = w.session
    model = session.model if session is not None else "unknown"
    root = ids.span("invoke_agent")
    asked_for_tools = {e.turn for e in w.events if e.kind == "follow_up" and e.needs_follow_up}
    out: list[dict[str, Any]] = []
    pending: Any = None
    starts: dict[str, Any] = {}
    by_call: dict[str, dict[str, Any]] = {}  # tool span by tool_use_id
    by_message: dict[str, dict[str, Any]] = {}  # tool span by the uuid of its wrapped result
    for e in w.events:
        k = e.kind
        if k == "request":
            pending = e
            carried = {part[0] for m in e.tail for part in m.get("parts", ())}
            for uuid in carried & by_message.keys():
                by_message.pop(uuid)["events"].append(
                    _station("resending", at(e), tracer__request_index=e.request_index)
                )
        elif k == "response" and pending is not None:
            out.append(_chat(w, ids, root, pending, e, at, e.turn in asked_for_tools))
            pending = None
        elif k == "tool_start":
            starts[e.tool_use_id] = e
        elif k == "tool_run":
            span = _tool(ids, root, e, starts.get(e.tool_use_id, e), at)
            by_call[e.tool_use_id] = span
            out.append(span)
        elif k == "mapping" and e.tool_use_id in by_call:
            span = by_call[e.tool_use_id]
            result = _text(e.block.get("content"))
            span["attributes"] += _attrs(gen_ai__tool__call__result=result, output__value=result)
            span["events"].append(
                _station("mapping", at(e), tracer__content_length=e.content_length)
            )
        elif k == "wrapping" and e.tool_use_id in by_call:
            span = by_call[e.tool_use_id]
            span["events"].append(_station("wrapping", at(e), tracer__message_uuid=e.message_uuid))
            by_message[e.message_uuid] = span
        elif k == "appending":
            for uuid in e.new_uuids:
                if uuid in by_message:
                    by_message[uuid]["events"].append(
                        _station("appending", at(e), tracer__after_count=e.after_count)
                    )
    return [_agent(w, ids, root, model, base, at), *out]


def _agent(w: Walk, ids: _Ids, root: str, model: str, base: int, at: Any) -> dict[str, Any]:
    inp, out = usage_totals(w.events)
    end = next(
        (e for e in reversed(w.events) if e.kind == "terminal"), w.events[-1] if w.events else None
    )
    src = w.header.get("source") or {}
    prompt = w.session.prompt if w.session is not None else None
    return {
        "traceId": ids.trace,
        "spanId": root,
        "name": "invoke_agent tracer",
        "kind": SPAN_KIND_INTERNAL,
        "startTimeUnixNano": str(base),
        "endTimeUnixNano": at(end) if end is not None else str(base),
        "attributes": _attrs(
            gen_ai__operation__name="invoke_agent",
            gen_ai__provider__name="anthropic",
            gen_ai__agent__name="tracer",
            gen_ai__request__model=model,
            gen_ai__conversation__id=src.get("session_id"),
            gen_ai__usage__input_tokens=inp,
            gen_ai__usage__output_tokens=out,
            openinference__span__kind="AGENT",
            input__value=prompt,
            tracer__source=src.get("kind"),
            tracer__scenario=w.session.scenario if w.session is not None else None,
            tracer__turns=len(w.turns),
            tracer__terminal_reason=getattr(end, "reason", None),
        ),
        "events": [],
        "status": {},
    }


def _tool(ids: _Ids, root: str, e: Any, start: Any, at: Any) -> dict[str, Any]:
    offset = -(e.duration_ms or 0) if start is e else 0
    arguments = _json(e.input)
    return {
        "traceId": ids.trace,
        "spanId": ids.span(f"tool:{e.tool_use_id}:{e.seq}"),
        "parentSpanId": root,
        "name": f"execute_tool {e.tool}",
        "kind": SPAN_KIND_INTERNAL,
        "startTimeUnixNano": at(start, offset),
        "endTimeUnixNano": at(e),
        "attributes": _attrs(
            gen_ai__operation__name="execute_tool",
            gen_ai__provider__name="anthropic",
            gen_ai__tool__name=e.tool,
            gen_ai__tool__call__id=e.tool_use_id,
            gen_ai__tool__type="function",
            gen_ai__tool__call__arguments=arguments,
            openinference__span__kind="TOOL",
            tool__name=e.tool,
            input__value=arguments,
            tracer__turn=e.turn,
            tracer__is_error=e.is_error,
            error__type=e.error_kind if e.is_error else None,
        ),
        "events": [],
        "status": {"code": STATUS_ERROR, "message": str(e.error_kind)} if e.is_error else {},
    }


def _chat(
    w: Walk, ids: _Ids, root: str, request: Any, response: Any, at: Any, asked_for_tools: bool
) -> dict[str, Any]:
    usage = response.usage or {}
    cache_read = usage.get("cache_read_input_tokens")
    cache_write = usage.get("cache_creation_input_tokens")
    total_in = int(usage.get("input_tokens") or 0) + int(cache_read or 0) + int(cache_write or 0)
    finish = response.stop_reason or ("tool_use" if asked_for_tools else "end_turn")
    # The response event is written when the answer is in: the call began latency_ms before it.
    # (The request event is written with it, so its own time is no start time.)
    start = at(response, -(response.latency_ms or 0))
    return {
        "traceId": ids.trace,
        "spanId": ids.span(f"chat:{request.request_index}"),
        "parentSpanId": root,
        "name": f"chat {response.model}",
        "kind": SPAN_KIND_CLIENT,
        "startTimeUnixNano": start,
        "endTimeUnixNano": at(response),
        "attributes": _attrs(
            gen_ai__operation__name="chat",
            gen_ai__provider__name="anthropic",
            gen_ai__request__model=response.model,
            gen_ai__response__model=response.model,
            gen_ai__response__id=response.message_id,
            gen_ai__usage__input_tokens=total_in,
            gen_ai__usage__output_tokens=int(usage.get("output_tokens") or 0),
            gen_ai__usage__cache_read__input_tokens=cache_read,
            gen_ai__usage__cache_creation__input_tokens=cache_write,
            gen_ai__response__finish_reasons=[finish],
            gen_ai__output__messages=_output_messages(w, response, finish),
            openinference__span__kind="LLM",
            llm__model_name=response.model,
            tracer__finish_reason_inferred=None if response.stop_reason else True,
            tracer__turn=request.turn,
            tracer__request__bytes=request.bytes,
            tracer__request__message_count=request.message_count,
        ),
        "events": [
            _station(
                "resending",
                start,
                tracer__prefix_len=request.prefix_len,
                tracer__new_messages=len(request.tail),
            )
        ],
        "status": {},
    }


def _output_messages(w: Walk, response: Any, finish: str) -> str:
    """The reply as GenAI ``gen_ai.output.messages``: one assistant message, its parts in order."""
    parts: list[dict[str, Any]] = []
    for uuid in response.assistant_uuids:
        message = w.messages.get(uuid)
        content = getattr(message, "content", None)
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append({"type": "text", "content": block.get("text", "")})
            elif block.get("type") == "tool_use":
                parts.append(
                    {
                        "type": "tool_call",
                        "id": block.get("id"),
                        "name": block.get("name"),
                        "arguments": block.get("input"),
                    }
                )
    return _json([{"role": "assistant", "parts": parts, "finish_reason": finish}])


def payload(w: Walk, salt: str = "") -> dict[str, Any]:
    """The OTLP ``ExportTraceServiceRequest`` (in its JSON form) for the whole session."""
    resource = _attrs(service__name="tracer", openinference__project__name="tracer")
    scope = {"name": "tracer", "version": __version__}
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": resource},
                "scopeSpans": [{"scope": scope, "spans": spans(w, salt)}],
            }
        ]
    }


def render(w: Walk) -> str:
    return _json(payload(w)) + "\n"
