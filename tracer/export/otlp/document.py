"""A session as OpenTelemetry spans (OTLP/JSON): ``--format otlp-json`` and ``--otlp-endpoint``.

The spans follow the OpenTelemetry GenAI semantic conventions, the names and attributes GenAI
instrumentations (the ``anthropic`` SDK's included) use, so Jaeger, Langfuse or Arize Phoenix
can show a trace without knowing tracer:

* one ``invoke_agent tracer`` span for the session (``gen_ai.operation.name = invoke_agent``,
  ``gen_ai.agent.name``, ``gen_ai.conversation.id``, the usage of the whole session, the final
  answer as its output; how it ended: :mod:`~tracer.export.otlp.agent`);
* one ``chat <model>`` span per request (resending → response), child of its loop's agent span,
  with the request's parameters, ``server.address``, the usage with cache, the finish reason, the
  reply (``gen_ai.output.messages``) and, as opt-in content, what the request sent
  (:mod:`~tracer.export.otlp.content`). A request the API refused still gets its span, with
  ``error.type`` and status ERROR (:mod:`~tracer.export.otlp.chat`);
* one ``execute_tool <name>`` span per tool call, also a child of its loop's agent span (as in
  Claude Code, where ``runTools`` in ``query.ts`` runs them between two model calls), with
  ``gen_ai.tool.name``, ``gen_ai.tool.description``, ``gen_ai.tool.call.id``, the arguments and
  ``gen_ai.tool.call.result``: the ``content`` the model was sent, not the raw output
  (:mod:`~tracer.export.otlp.tool`);
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
``shift_to_now`` the session keeps its shape and ends now (nothing in the future), so a
backend's default "last 7 days" shows an old import. Every child is fitted inside its parent
(:func:`otlp_spans.fit`).

One pass over the events (:class:`~tracer.export.otlp.walker.Walker`), with dictionaries for the
joins, so the export takes time in proportion to the trace (``bench/otlp_export.py``). Ids are
hex from a hash of the trace, so exporting the same trace twice gives the same ids; ``salt`` makes
them differ.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from tracer import __version__
from tracer.export.otlp import chat
from tracer.export.otlp import content as oc
from tracer.export.otlp.spans import Ids, attrs, finish, to_json, to_json_bytes
from tracer.export.otlp.walker import Walker
from tracer.export.walk import Walk


@dataclass
class Options:
    """How to export: ids' salt, content on or off (None: by the trace's source), its bound in
    bytes (0: none), and whether to move the session so that it ends now."""

    salt: str = ""
    content: bool | None = None
    max_content: int = oc.DEFAULT_LIMIT
    shift_to_now: bool = False
    now_ns: int | None = None


def _base_ns(w: Walk, options: Options) -> int:
    created = str(w.header.get("created") or "1970-01-01T00:00:00Z")
    try:
        return int(datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()) * 10**9
    except ValueError:
        return 0


def _context(w: Walk, options: Options) -> chat.Context:
    ids = Ids(w.header, options.salt)
    source = w.header.get("source") or {}
    imported = source.get("kind") == "import"
    content = not imported if options.content is None else options.content
    conversation = source.get("session_id") or f"tracer-{ids.trace}"
    # A scenario's requests go to the SDK's default host (offline, the scripted transport
    # answers for it); a model recording or an import names its server only if it kept it.
    base_url = source.get("base_url") or (
        "https://api.anthropic.com" if source.get("kind") == "scenario" else None
    )
    host = urlsplit(base_url).hostname if base_url else None
    return chat.Context(ids, _base_ns(w, options), content, conversation, host)


def _end_at(spans: list[dict[str, Any]], now: int) -> None:
    """Move every time so that the session's last moment is ``now``, its shape kept: moving its
    start to now would put the rest of it in the future, where a backend's "last 7 days" does
    not look (Phoenix showed 1 of 434 spans)."""
    end = max(
        (
            t
            for s in spans
            for t in (s["endTimeUnixNano"], *(e["timeUnixNano"] for e in s["events"]))
        ),
        default=now,
    )
    delta = now - end
    for s in spans:
        s["startTimeUnixNano"] += delta
        s["endTimeUnixNano"] += delta
        for e in s["events"]:
            e["timeUnixNano"] += delta


def spans(w: Walk, options: Options | None = None) -> list[dict[str, Any]]:
    """Every span of the session, the main ``invoke_agent`` span first."""
    options = options or Options()
    found = Walker(w, _context(w, options), options.max_content).run()
    if options.shift_to_now:
        now = options.now_ns if options.now_ns is not None else time.time_ns()
        _end_at(found, now)
    return finish(found)


def payload(w: Walk, options: Options | None = None) -> dict[str, Any]:
    """The OTLP ``ExportTraceServiceRequest`` (in its JSON form) for the whole session."""
    return {
        "resourceSpans": [
            {
                "resource": _resource(),
                "scopeSpans": [{"scope": _scope(), "spans": spans(w, options)}],
            }
        ]
    }


def _resource() -> dict[str, Any]:
    return {"attributes": attrs(service__name="tracer", openinference__project__name="tracer")}


def _scope() -> dict[str, str]:
    return {"name": "tracer", "version": __version__}


def render(w: Walk) -> str:
    return to_json(payload(w)) + "\n"


def write_json(
    w: Walk,
    write: Callable[[bytes], Any],
    options: Options | None = None,
) -> None:
    """The same bytes as :func:`render`, handed to ``write`` a span at a time.

    An export of 10,000 turns is one 600 MB document. Encoded whole, decoded to text and encoded
    again on its way into the file, it was three fresh copies of that size, and the kernel's work
    handing over their pages grew faster than the document (``bench/otlp_export.py``). A span at
    a time, the writing holds one span's bytes, and the pieces join into exactly what
    :func:`render` gives (compact JSON of a list is its items' JSON joined by commas)."""
    found = spans(w, options)
    write(
        b'{"resourceSpans":[{"resource":'
        + to_json_bytes(_resource())
        + b',"scopeSpans":[{"scope":'
        + to_json_bytes(_scope())
        + b',"spans":['
    )
    for i, span in enumerate(found):
        write(b"," + to_json_bytes(span) if i else to_json_bytes(span))
    write(b"]}]}]}\n")
