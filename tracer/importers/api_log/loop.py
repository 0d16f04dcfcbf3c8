"""The main loop of a wire log, request by request, as the journey's steps.

Claude Code's loop (``queryLoop()`` in ``src/query.ts``) sends the whole history every time, so
a wire log shows each pass of it as one request: the ``messages`` array the last one sent, plus
the assistant turn that came back and the user turn that **wrapped** its tool results. Here the
resending is seen, not rebuilt. :func:`emit_log` walks the pairs in the order they were logged:

* before each main-loop request, the tool results its new user turn carries go through
  ``tool_run``, **mapping** and **wrapping**, and the turn is **appended** (:func:`_tool_phase`);
  when the last response asked for no tool, or no user turn follows it, the loop ended there;
* the internal list is brought in line with the body (:class:`~tracer.importers.api_log.wire.Wire`),
  the request is written (**resending**) and its rebuilt body compared byte for byte with the
  logged one; failed calls sent again with the same body are attempts of that request
  (:func:`_retries`), not turns;
* the response, parsed from the logged stream (:mod:`tracer.importers.api_log.sse`), gives the
  ``response`` and ``follow_up`` steps; a call with no readable message ends the loop with
  ``model_error``;
* any other pair (a quota probe, a helper call, another thread's request) is a ``side_call`` note
  where it was logged, never a turn.

:mod:`tracer.importers.api_log.importer` picks the thread and writes the trace around these steps.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracer.importers.api_log.sse import parse_response
from tracer.importers.api_log.threads import Thread, first_prompt, side_call
from tracer.importers.api_log.wire import Wire
from tracer.importers.builder import TraceBuilder
from tracer.importers.output import ImportReport, epoch_of
from tracer.model.internal_messages import Message
from tracer.trace.events import Event, HttpAttempt, SessionStarted
from tracer.trace.requests import encode_body


def emit_log(
    path: Path,
    pairs: list[tuple[int, dict[str, Any], dict[str, Any]]],
    main: set[int],
    emit: Callable[[Event], Any],
    report: ImportReport,
    others: list[Thread] | None = None,
) -> TraceBuilder:
    """Emit the steps of the main loop's requests (the lines in ``main``) through ``emit``;
    every other pair becomes a ``side_call`` note where it was logged."""
    b = TraceBuilder(emit)
    wire = Wire(b, path)
    first = next(req["body"] for line, req, _ in pairs if line in main)
    prompt = first_prompt(first["messages"])
    b._emit(
        SessionStarted,
        model=str(first.get("model")),
        prompt=prompt,
        tools=[str(t.get("name")) for t in first.get("tools") or [] if isinstance(t, dict)],
        request_params={k: v for k, v in first.items() if k != "messages"},
    )
    pending: tuple[list[Message], list[dict[str, Any]], int] | None = None
    exact = total = 0
    retried, failed_before = _retries([p for p in pairs if p[0] in main])
    for line, request, response in pairs:
        body = request["body"]
        b.at(epoch_of(request.get("timestamp")))
        if line not in main:
            info = side_call(line, request, response, others)
            if info["purpose"].startswith("thread "):
                b.note(
                    "side_call",
                    f"request of {info['purpose']}, a conversation of its own "
                    f"(import it with --thread {info['purpose'][7:]})",
                    data=info,
                )
                continue
            b.note(
                "side_call",
                f"side call to {info['model']} ({info['purpose']}, "
                f"max_tokens {info['max_tokens']}): not part of the loop",
                data=info,
            )
            continue
        if line in retried:
            report.count("failed attempts retried")
            continue
        if pending is not None:
            _tool_phase(b, wire, pending, body["messages"], report)
        wire.sync(body["messages"])
        b.start_turn()
        encoded = b.request(
            {k: v for k, v in body.items() if k != "messages"}, list(body), body=True
        )
        total += 1
        exact += encoded == encode_body(body)
        earlier = failed_before.get(line, [])
        for number, failure in enumerate(
            [*earlier, _failure(response)] if earlier else [], start=1
        ):
            status, error = failure
            b._emit(
                HttpAttempt,
                request_index=b.request_index,
                attempt=number,
                status=status,
                error=error or (f"HTTP {status}" if status != 200 else None),
            )
        message = parse_response(response)
        if message is not None and not (
            isinstance(message.get("content"), list)
            and all(isinstance(b, dict) for b in message["content"])
        ):
            message = None  # a response whose blocks cannot be read: no message
        report.count("model calls")
        b.at(epoch_of(response.get("timestamp")))
        if message is None or _failed(response):
            status, cut = _failure(response)
            b.end("model_error", f"HTTP {status}: {cut or 'no message in the log'}")
            pending = None
            continue
        assistant = wire.messages_for(
            {"role": "assistant", "content": message.get("content")}, str(message.get("id"))
        )
        latency = _latency(request, response)
        uses = b.response(
            message_id=str(message.get("id")),
            model=str(message.get("model")),
            usage=dict(message.get("usage") or {}),
            assistant=assistant,
            stop_reason=message.get("stop_reason"),
            latency_ms=latency,
            attempts=len(earlier) + 1,
        )
        wire.place(
            len(body["messages"]),
            {"role": "assistant", "content": message.get("content")},
            assistant,
        )
        pending = (assistant, uses, len(body["messages"]))
    if pending is not None:
        uses = pending[1]
        b.messages = [*b.messages, *pending[0]]
        b.end(
            "aborted_tools" if uses else "completed",
            "the log ends before the tool results were sent" if uses else None,
        )
    report.notes.append(f"{exact} of {total} main-loop requests rebuilt byte for byte")
    return b


def _retries(
    mains: list[tuple[int, dict[str, Any], dict[str, Any]]],
) -> tuple[set[int], dict[int, list[tuple[Any, str | None]]]]:
    """Failed calls sent again with the same body (``stream`` aside) are attempts of one
    request, not turns.

    Returns the lines of those failed attempts, and for each request that followed them the
    statuses they got (and what went wrong where the status does not say: a cut stream).
    """
    retried: set[int] = set()
    before: dict[int, list[tuple[Any, str | None]]] = {}
    carry: list[tuple[Any, str | None]] = []
    for (line, req, resp), nxt in zip(mains, [*mains[1:], None], strict=True):
        failed = _failed(resp)
        if failed and nxt is not None and _same_request(nxt[1]["body"], req["body"]):
            carry.append(_failure(resp))
            retried.add(line)
            continue
        if carry:
            before[line], carry = carry, []
    return retried, before


def _failure(response: dict[str, Any]) -> tuple[Any, str | None]:
    """An attempt's status, and what went wrong when the status does not say it (a cut)."""
    error = response.get("error")
    return response.get("status_code"), str(error) if error else None


def _failed(response: dict[str, Any]) -> bool:
    """No whole answer: an HTTP error, nothing readable, or a stream the recorder saw cut
    (``error``, which ``tracer record --claude-code`` writes; a partial stream still parses)."""
    return (
        response.get("status_code", 200) != 200
        or bool(response.get("error"))
        or parse_response(response) is None
    )


def _same_request(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same request sent again: 2.1.88 answers a broken stream by sending it once more
    without ``stream`` (``executeNonStreamingRequest`` in ``src/services/api/claude.ts``), which
    is an attempt, not a turn."""
    return {k: v for k, v in a.items() if k != "stream"} == {
        k: v for k, v in b.items() if k != "stream"
    }


def _tool_phase(
    b: TraceBuilder,
    wire: Wire,
    pending: tuple[list[Message], list[dict[str, Any]], int],
    body_messages: list[Any],
    report: ImportReport,
) -> None:
    """Between two main requests: the tool results the next one carries, or the loop's end."""
    assistant, uses, p = pending
    nxt = body_messages[p + 1] if len(body_messages) > p + 1 else None
    if not uses or not isinstance(nxt, dict) or nxt.get("role") != "user":
        b.messages = [*b.messages, *assistant]
        b.end("completed" if not uses else "aborted_tools")
        return
    holder = {str(u.get("id")): m.uuid for m in assistant for u in m.tool_uses()}
    calls = {str(u.get("id")): u for u in uses}
    results = wire.messages_for(nxt)
    for m in results:
        for block in m.blocks:
            if block.get("type") != "tool_result":
                continue
            tid = str(block.get("tool_use_id"))
            use = calls.get(tid, {})
            b.tool_result(
                tid,
                str(use.get("name", "unknown")),
                use.get("input"),
                block,
                m,
                block.get("content"),
                holder.get(tid, ""),
            )
            report.count("tool results")
    wire.place(p + 1, nxt, results)
    b.append([*assistant, *results])


def _latency(request: dict[str, Any], response: dict[str, Any]) -> int | None:
    start, end = request.get("timestamp"), response.get("timestamp")
    if isinstance(start, int | float) and isinstance(end, int | float) and end >= start:
        return int((end - start) * 1000)
    return None
