"""A session as OpenTelemetry spans (OTLP/JSON): ``--format otlp-json`` and ``--otlp-endpoint``.

The spans follow the OpenTelemetry GenAI semantic conventions, the names and attributes GenAI
instrumentations (the ``anthropic`` SDK's included) use, so Jaeger, Langfuse or Arize Phoenix
can show a trace without knowing tracer:

* one ``invoke_agent tracer`` span for the session (``gen_ai.operation.name = invoke_agent``,
  ``gen_ai.agent.name``, ``gen_ai.conversation.id``, the usage of the whole session, the final
  answer as its output). Status ERROR when the loop ended in an error (``model_error``); an
  interrupted loop or one stopped by ``max_turns`` is marked by ``gen_ai.response.finish_reasons``
  and a ``terminal`` event;
* one ``chat <model>`` span per request (resending → response), child of its loop's agent span,
  with the request's parameters, ``server.address``, the usage with cache, the finish reason, the
  reply (``gen_ai.output.messages``) and, as opt-in content, what the request sent
  (:mod:`tracer.export.otlp_content`). A request the API refused still gets its span, with
  ``error.type`` and status ERROR;
* one ``execute_tool <name>`` span per tool call, also a child of its loop's agent span (as in
  Claude Code, where ``runTools`` in ``query.ts`` runs them between two model calls), with
  ``gen_ai.tool.name``, ``gen_ai.tool.description``, ``gen_ai.tool.call.id``, the arguments and
  ``gen_ai.tool.call.result``: the ``content`` the model was sent, not the raw output;
* a subagent (a nested loop inside a ``Task`` call) is an ``invoke_agent`` span of its own under
  that call's ``execute_tool`` span, with its chat and tool spans beneath it.

The four steps of the journey are span events named as in the chapter, in the order one result
meets them: ``mapping``, ``wrapping`` and ``appending`` on the tool's span, then ``resending`` on
the same span *and* on the ``chat`` span of the request that carried the result back. A result
whose span has no ``resending`` event never reached the model (``05-max-turns``). Each event has
``tracer.journey.step`` (1–4) and its Chinese name in ``tracer.journey.step.zh``.

Phoenix files spans by OpenInference kind, so each span also has ``openinference.span.kind``
(``AGENT``, ``LLM``, ``TOOL``) and ``input.value`` / ``output.value``; other backends ignore them.

Content (messages, prompts, tool arguments and results) is on by default for recordings, which
hold no secrets after redaction, and off for imported sessions unless asked for
(``--otlp-content``): a real session may hold anything. Times are the trace's own; with
``shift_to_now`` the session keeps its shape and starts now, so a backend's default "last 7 days"
shows an old import. Every child is fitted inside its parent (:func:`otlp_spans.fit`).

One pass over the events, with dictionaries for the joins, so the export takes time in proportion
to the trace (``bench/otlp_export.py``). Ids are hex from a hash of the trace, so exporting the
same trace twice gives the same ids; ``salt`` makes them differ.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from tracer import __version__
from tracer.export import otlp_content as oc
from tracer.export.otlp_spans import (
    PROVIDER,
    SPAN_KIND_CLIENT,
    SPAN_KIND_INTERNAL,
    Ids,
    attrs,
    error,
    error_type,
    finish,
    fit,
    output_messages,
    span,
    step_event,
    to_json,
)
from tracer.export.walk import Walk

ERROR_ENDINGS = ("model_error",)
INTERRUPTED = ("aborted_tools", "aborted_streaming")


@dataclass
class Options:
    """How to export: ids' salt, content on or off (None: by the trace's source), its bound,
    and whether to move the session's start to now."""

    salt: str = ""
    content: bool | None = None
    max_content: int = oc.DEFAULT_LIMIT
    shift_to_now: bool = False
    now_ns: int | None = None


@dataclass
class _Loop:
    """One agent loop being walked: the main one, or a subagent inside a Task call."""

    span: dict[str, Any]
    tool_use_id: str | None = None
    last_text: list[Any] = field(default_factory=list)
    ended: Any = None


def _base_ns(w: Walk, options: Options) -> int:
    if options.shift_to_now:
        return options.now_ns if options.now_ns is not None else time.time_ns()
    created = str(w.header.get("created") or "1970-01-01T00:00:00Z")
    try:
        return int(datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()) * 10**9
    except ValueError:
        return 0


class _Export:
    def __init__(self, w: Walk, options: Options) -> None:
        self.w, self.options = w, options
        self.ids = Ids(w.header, options.salt)
        self.base = _base_ns(w, options)
        source = w.header.get("source") or {}
        on = options.content
        self.content = source.get("kind") != "import" if on is None else on
        self.conversation = source.get("session_id") or f"tracer-{self.ids.trace}"
        # Recordings talk to the SDK's default host (offline, the scripted transport answers
        # for it); an import does not say which server it talked to.
        base_url = source.get("base_url") or "https://api.anthropic.com"
        self.server = None if source.get("kind") == "import" else urlsplit(base_url).hostname
        self.history = oc.History()
        self.spans: list[dict[str, Any]] = []
        self.grow: set[str] = set()
        self.tool_count: dict[str, int] = {}
        self.descriptions: dict[str, str] = {}
        self.calls: dict[str, Any] = {}  # tool_use id -> its input (a Task call's subagent_type)
        self.task_spans: set[str] = set()  # execute_tool spans a subagent hangs under
        self._model: str | None = None

    def at(self, event: Any, offset_ms: float = 0) -> int:
        return self.base + round(float(event.t or 0.0) * 1e9) + round(offset_ms * 1e6)

    def common(self) -> dict[str, Any]:
        return {"gen_ai.provider.name": PROVIDER, "gen_ai.conversation.id": self.conversation}

    # -- the walk ------------------------------------------------------------------------------

    def run(self) -> list[dict[str, Any]]:
        loops = [self._agent(None, "invoke_agent", None, self.base)]
        pending: Any = None
        attempts: list[Any] = []
        starts: dict[str, Any] = {}
        asked: dict[str, dict[str, Any]] = {}  # tool_use_id -> chat span that asked for it
        by_call: dict[str, dict[str, Any]] = {}
        by_message: dict[str, dict[str, Any]] = {}
        last_chat: dict[str, Any] | None = None
        pending_inputs: tuple[Any, dict[str, Any]] = (None, {})
        for e in self.w.events:
            k = e.kind
            loop = loops[-1]
            if k == "message":
                self.history.message(e)
                for block in _blocks(e) if e.type == "assistant" else ():
                    if block.get("type") == "tool_use":
                        self.calls[str(block.get("id"))] = block.get("input")
            elif k == "session_start":
                self._session(loop, e)
            elif k == "request":
                if pending is not None:
                    self._failed(loop, pending, pending_inputs, attempts, None)
                pending, attempts = e, []
                self.history.request(e)
                carried = {part[0] for m in e.tail for part in m.get("parts", ())}
                for uuid in carried & by_message.keys():
                    by_message.pop(uuid)["events"].append(
                        step_event("resending", self.at(e), tracer__request_index=e.request_index)
                    )
                inputs = self.history.window(self.options.max_content) if self.content else None
                pending_inputs = (inputs, dict(self.history.params))
            elif k == "http_attempt" and pending is not None:
                attempts.append(e)
            elif k == "response" and pending is not None:
                last_chat = self._chat(loop, pending, e, pending_inputs)
                pending = None
            elif k == "follow_up" and last_chat is not None:
                for tool_use_id in e.tool_use_ids:
                    asked[tool_use_id] = last_chat
            elif k == "subagent_start":
                n = self.tool_count.get(e.tool_use_id, 0)
                parent = self.ids.span(f"tool:{e.tool_use_id}:{n}")
                self.task_spans.add(parent)
                key = f"agent:{e.loop}:{e.seq}"
                loops.append(self._agent(parent, key, e, self.at(e)))
            elif k == "subagent_end" and len(loops) > 1:
                self._close(loops.pop(), e)
            elif k == "tool_start":
                starts[e.tool_use_id] = e
            elif k == "tool_run":
                by_call[e.tool_use_id] = self._tool(loop, e, starts.get(e.tool_use_id, e), asked)
            elif k == "mapping" and e.tool_use_id in by_call:
                self._mapped(by_call[e.tool_use_id], e)
            elif k == "wrapping" and e.tool_use_id in by_call:
                s = by_call[e.tool_use_id]
                s["events"].append(
                    step_event("wrapping", self.at(e), tracer__message_uuid=e.message_uuid)
                )
                by_message[e.message_uuid] = s
            elif k == "appending":
                for uuid in e.new_uuids:
                    if uuid in by_message:
                        by_message[uuid]["events"].append(
                            step_event("appending", self.at(e), tracer__after_count=e.after_count)
                        )
            elif k == "terminal":
                if pending is not None:
                    self._failed(loop, pending, pending_inputs, attempts, e)
                    pending = None
                loop.ended = e
        if pending is not None:  # the trace stops mid-request
            self._failed(loops[-1], pending, pending_inputs, attempts, None)
        while len(loops) > 1:
            self._close(loops.pop(), None)
        self._close(loops[0], None)
        fit(self.spans, self.grow)
        return finish(self.spans)

    # -- spans -----------------------------------------------------------------------------------

    def _agent(self, parent: str | None, key: str, start: Any, at: int) -> _Loop:
        call = self.calls.get(start.tool_use_id) if start is not None else None
        kind = call.get("subagent_type") if isinstance(call, dict) else None
        name = "tracer" if start is None else str(kind or "subagent")
        s = span(self.ids, key, parent, f"invoke_agent {name}", SPAN_KIND_INTERNAL, at, at)
        self.spans.append(s)
        if start is not None:  # a subagent's span covers its loop; the session's starts at 0
            self.grow.add(s["spanId"])
        loop = _Loop(s, None if start is None else start.tool_use_id)
        named = {
            **self.common(),
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": name,
            "openinference.span.kind": "AGENT",
        }
        if start is not None:
            named["tracer.subagent.loop"] = start.loop
            named["tracer.subagent.depth"] = start.depth
            if self.content and start.prompt:
                named["input.value"] = start.prompt
        s["attributes"] += attrs(named)
        return loop

    def _session(self, loop: _Loop, e: Any) -> None:
        self._model = e.model
        params = e.request_params or {}
        for tool in params.get("tools") or ():
            if isinstance(tool, dict) and tool.get("description"):
                self.descriptions[str(tool.get("name"))] = tool["description"]
        src = self.w.header.get("source") or {}
        named: dict[str, Any] = {
            "gen_ai.request.model": e.model,
            "gen_ai.request.max_tokens": params.get("max_tokens"),
            "gen_ai.request.temperature": params.get("temperature"),
            "server.address": self.server,
        }
        if loop.tool_use_id is None:
            named.update({"tracer.source": src.get("kind"), "tracer.scenario": e.scenario})
            if self.content:
                named["input.value"] = e.prompt
        loop.span["attributes"] += attrs(named)

    def _close(self, loop: _Loop, end_event: Any) -> None:
        s, ended = loop.span, loop.ended
        last = end_event or ended or (self.w.events[-1] if self.w.events else None)
        if last is not None:
            s["endTimeUnixNano"] = max(s["endTimeUnixNano"], self.at(last))
        named: dict[str, Any] = {}
        if loop.tool_use_id is None:
            named["tracer.turns"] = len(self.w.turns)
            named.update(_usage(self.w.events))
        if ended is not None:
            reason = ended.reason
            named["tracer.terminal_reason"] = reason
            named["gen_ai.response.finish_reasons"] = [reason]
            if reason in INTERRUPTED:
                named["tracer.interrupted"] = True
            if reason == "max_turns":
                named["tracer.max_turns_reached"] = True
            s["events"].append(
                {
                    "timeUnixNano": self.at(ended),
                    "name": "terminal",
                    "attributes": attrs(
                        tracer__terminal_reason=reason, tracer__turns=ended.turn_count
                    ),
                }
            )
            if reason in ERROR_ENDINGS:
                error(s, error_type(ended.error, None), ended.error or reason)
        if self.content and loop.last_text:
            text = "\n".join(str(b.get("text", "")) for b in loop.last_text)
            named["output.value"] = text
            named["gen_ai.output.messages"] = to_json(output_messages(loop.last_text, "end_turn"))
        s["attributes"] += attrs(named)

    def _chat_span(
        self, loop: _Loop, request: Any, start: int, end: int, model: str
    ) -> dict[str, Any]:
        key = f"chat:{request.request_index}"
        s = span(self.ids, key, loop.span["spanId"], f"chat {model}", SPAN_KIND_CLIENT, start, end)
        s["events"].append(
            step_event(
                "resending",
                start,
                tracer__prefix_len=request.prefix_len,
                tracer__new_messages=len(request.tail),
            )
        )
        self.spans.append(s)
        return s

    def _request_attrs(self, request: Any, inputs: Any, model: str) -> dict[str, Any]:
        msgs, params = inputs
        named: dict[str, Any] = {
            **self.common(),
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": params.get("model") or model,
            "gen_ai.request.max_tokens": params.get("max_tokens"),
            "gen_ai.request.temperature": params.get("temperature"),
            "server.address": self.server,
            "openinference.span.kind": "LLM",
            "llm.model_name": model,
            "llm.provider": PROVIDER,
            "tracer.turn": request.turn,
            "tracer.request.index": request.request_index,
            "tracer.request.bytes": request.bytes,
            "tracer.request.message_count": request.message_count,
        }
        if msgs is not None:
            system = oc.system_instructions(params.get("system"))
            tools = oc.tool_definitions(params.get("tools"))
            named["gen_ai.input.messages"] = to_json(msgs)
            named["gen_ai.system_instructions"] = to_json(system) if system else None
            named["gen_ai.tool.definitions"] = to_json(tools) if tools else None
            named["input.value"] = to_json(msgs)
            named["input.mime_type"] = "application/json"
            named.update(oc.openinference("llm.input_messages", msgs, system))
            named.update(oc.openinference_tools(tools))
        return named

    def _chat(self, loop: _Loop, request: Any, response: Any, inputs: Any) -> dict[str, Any]:
        usage = response.usage or {}
        cache_read = usage.get("cache_read_input_tokens")
        cache_write = usage.get("cache_creation_input_tokens")
        total_in = (
            int(usage.get("input_tokens") or 0) + int(cache_read or 0) + int(cache_write or 0)
        )
        asked = any(
            b.get("type") == "tool_use"
            for u in response.assistant_uuids
            for b in _blocks(self.w.messages.get(u))
        )
        finish_reason = response.stop_reason or ("tool_use" if asked else "end_turn")
        # The response event is written when the answer is in: the call began latency_ms before.
        start = self.at(response, -(response.latency_ms or 0))
        s = self._chat_span(loop, request, start, self.at(response), response.model)
        blocks = [b for u in response.assistant_uuids for b in _blocks(self.w.messages.get(u))]
        loop.last_text = [b for b in blocks if _is_text(b)]
        named = self._request_attrs(request, inputs, response.model)
        named.update(
            {
                "gen_ai.response.model": response.model,
                "gen_ai.response.id": response.message_id,
                "gen_ai.usage.input_tokens": total_in,
                "gen_ai.usage.output_tokens": int(usage.get("output_tokens") or 0),
                "gen_ai.usage.cache_read.input_tokens": cache_read,
                "gen_ai.usage.cache_creation.input_tokens": cache_write,
                "gen_ai.response.finish_reasons": [finish_reason],
                "tracer.finish_reason_inferred": None if response.stop_reason else True,
                "tracer.attempts": response.attempts if response.attempts > 1 else None,
            }
        )
        if self.content:
            out = output_messages(blocks, finish_reason)
            named["gen_ai.output.messages"] = to_json(out)
            named["output.value"] = "\n".join(
                p.get("content", "") for p in out[0]["parts"] if p["type"] == "text"
            ) or to_json(out)
            named.update(oc.openinference("llm.output_messages", out))
        s["attributes"] += attrs(named)
        return s

    def _failed(
        self, loop: _Loop, request: Any, inputs: Any, attempts: list[Any], ended: Any
    ) -> None:
        """A request that got no answer: refused, failed or cut off. Its span says why."""
        last = attempts[-1] if attempts else None
        end_event = last or ended or request
        text = (last.error if last is not None else None) or getattr(ended, "error", None)
        status = last.status if last is not None else None
        model = str(inputs[1].get("model") or self._model or "unknown")
        s = self._chat_span(loop, request, self.at(request), self.at(end_event), model)
        named = self._request_attrs(request, inputs, model)
        named["http.response.status_code"] = status
        named["tracer.attempts"] = len(attempts) or None
        s["attributes"] += attrs(named)
        error(s, error_type(text, status), text or "no answer: the trace ends before the response")

    def _tool(self, loop: _Loop, e: Any, start: Any, asked: dict[str, Any]) -> dict[str, Any]:
        n = self.tool_count.get(e.tool_use_id, 0)
        self.tool_count[e.tool_use_id] = n + 1
        offset = -(e.duration_ms or 0) if start is e else 0
        begin = self.at(start, offset)
        if (chat := asked.get(e.tool_use_id)) is not None:  # not before the model asked for it
            begin = max(begin, chat["startTimeUnixNano"])
            if start is e and not e.duration_ms:  # an import: ran once the answer was in
                begin = max(begin, chat["endTimeUnixNano"])
        key = f"tool:{e.tool_use_id}:{n}"
        s = span(
            self.ids,
            key,
            loop.span["spanId"],
            f"execute_tool {e.tool}",
            SPAN_KIND_INTERNAL,
            begin,
            self.at(e),
        )
        if s["spanId"] in self.task_spans:
            self.grow.add(s["spanId"])  # a Task call whose subagent already hangs under it
        arguments = to_json(e.input)
        named: dict[str, Any] = {
            **self.common(),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": e.tool,
            "gen_ai.tool.description": self.descriptions.get(e.tool),
            "gen_ai.tool.call.id": e.tool_use_id,
            "gen_ai.tool.type": "function",
            "openinference.span.kind": "TOOL",
            "tool.name": e.tool,
            "tracer.turn": e.turn,
            "tracer.is_error": e.is_error,
        }
        if self.content:
            named.update({"gen_ai.tool.call.arguments": arguments, "input.value": arguments})
        s["attributes"] += attrs(named)
        if e.is_error:
            error(s, str(e.error_kind or "_OTHER"), str(e.error_kind))
        self.spans.append(s)
        return s

    def _mapped(self, s: dict[str, Any], e: Any) -> None:
        if self.content:
            result = oc.result_text(e.block.get("content"))
            s["attributes"] += attrs({"gen_ai.tool.call.result": result, "output.value": result})
        s["events"].append(
            step_event("mapping", self.at(e), tracer__content_length=e.content_length)
        )


def _is_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text"


def _blocks(message: Any) -> list[Any]:
    c = getattr(message, "content", None)
    return c if isinstance(c, list) else ([{"type": "text", "text": c}] if c else [])


def _usage(events: list[Any]) -> dict[str, int]:
    inp = out = 0
    for e in events:
        if e.kind == "response":
            u = e.usage or {}
            inp += sum(
                int(u.get(k) or 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
            out += int(u.get("output_tokens") or 0)
    return {"gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": out}


def spans(w: Walk, options: Options | None = None) -> list[dict[str, Any]]:
    """Every span of the session, the main ``invoke_agent`` span first."""
    return _Export(w, options or Options()).run()


def payload(w: Walk, options: Options | None = None) -> dict[str, Any]:
    """The OTLP ``ExportTraceServiceRequest`` (in its JSON form) for the whole session."""
    resource = attrs(service__name="tracer", openinference__project__name="tracer")
    scope = {"name": "tracer", "version": __version__}
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": resource},
                "scopeSpans": [{"scope": scope, "spans": spans(w, options)}],
            }
        ]
    }


def render(w: Walk) -> str:
    return to_json(payload(w)) + "\n"
