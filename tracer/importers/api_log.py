"""``tracer import api-log``: a wire-level log of ``/v1/messages`` calls becomes a trace.

Unlike a transcript, a wire log (claude-trace's RawPair lines: ``{request, response,
logged_at}``) holds every request exactly as it was sent, so here resending is not rebuilt but
*seen*: the ``messages`` array grows by one assistant turn and one tool-result turn per call, and
the whole of it goes out every time. Each main-loop request becomes a resending step whose body
the trace rebuilds byte for byte (the import checks this against the logged body and reports it).

Three things need care:

* **side calls and other threads**: Claude Code also calls a small model for quota probes
  (``max_tokens: 1``), titles and spinner words; those are counted, listed in the header and
  noted in the trace, never a turn. A log can also hold more than one real conversation (a
  subagent, a second session): each thread (same model, same first message, sending tools) is an
  agent loop of its own. One is imported (``--thread N``, by default the busiest) and the others
  are listed, so each can be imported in turn;
* **moving cache markers**: each request puts ``cache_control`` on its last blocks, so a message
  resent later is not byte-identical to its first sending. A changed message is written again
  under a new uuid and takes the old one's place in the internal list;
* **secrets**: no header of any request or response is copied into the trace.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.errors import UserError
from tracer.importers.builder import ToolResult, TraceBuilder
from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport, created_at, epoch_of
from tracer.importers.shapes import api_log_record
from tracer.importers.sse import parse_response
from tracer.importers.threads import Thread, find_threads, first_prompt, pairs_of, thread_key
from tracer.importers.wire import Wire
from tracer.messages import Message
from tracer.trace.events import Event, Header, HttpAttempt, SessionStarted
from tracer.trace.requests import encode_body
from tracer.trace.writer import TraceWriter

NOTES = (
    "Requests are the logged bodies; headers (and with them any credentials) are never copied.",
    "A wire log has no raw tool output: each tool_run's output is the tool_result content sent.",
    "Side calls (other models, max_tokens 1 probes, other threads) are noted, not turns.",
)
_AGENT = re.compile(r"claude-cli/([\w.\-]+)")


def import_every_thread(path: str | Path, output: str | Path) -> list[tuple[Path, ImportReport]]:
    """Each conversation of the log into a trace of its own: the busiest into ``output``, each
    other one into ``<output>.thread-N.trace.jsonl`` beside it (a log often holds a subagent's
    loop, or a second session, beside the main one)."""
    output = Path(output)
    first = import_api_log(path, output)
    done = [(output, first)]
    numbers = [int(n) for n in re.findall(r"^  thread (\d+):", "\n".join(first.notes), re.M)]
    if not numbers:
        return done
    stem = output.name.removesuffix(".jsonl").removesuffix(".trace")
    for number in numbers:
        target = output.with_name(f"{stem}.thread-{number}.trace.jsonl")
        done.append((target, import_api_log(path, target, thread=number)))
    where = "; ".join(f"{report.source_thread} → {out}" for out, report in done)
    first.notes.append(f"each conversation went into its own trace: {where}")
    return done


def import_api_log(path: str | Path, output: str | Path, thread: int | None = None) -> ImportReport:
    """Import the log ``path`` into the trace ``output``.

    ``thread`` picks one conversation (numbered as :func:`find_threads` lists them); by default
    the one with the most requests. The others are listed in the report and noted in the trace.
    """
    path = Path(path)
    report = ImportReport(source=str(path))
    pairs = pairs_of(read_jsonl(path, report, api_log_record), report)
    if not pairs:
        raise UserError("no /v1/messages request/response pairs: not an API log", path)
    threads = find_threads(pairs)
    if thread is not None and not 1 <= thread <= len(threads):
        raise UserError(
            f"there is no thread {thread}: the log holds {len(threads)} conversation(s) with tools",
            path,
        )
    if threads:
        chosen = threads[thread - 1] if thread else max(threads, key=lambda t: len(t.lines))
        main_thread = chosen.key
    else:  # no request sent tools: the busiest thread of all is the loop
        chosen = None
        main_thread = Counter(thread_key(p[1]["body"]) for p in pairs).most_common(1)[0][0]
    main = {
        line
        for line, req, _ in pairs
        if thread_key(req["body"]) == main_thread and req["body"].get("max_tokens") != 1
    }
    if not main:  # every call is a probe (max_tokens 1): there is no loop to import
        raise UserError("no main-loop request (every call is a max_tokens 1 probe)", path)
    others = [t for t in threads if t is not chosen]
    if len(threads) > 1:
        report.notes.append(
            f"the log holds {len(threads)} conversations; this trace holds "
            f"thread {chosen.number if chosen else '?'} (--thread N imports one alone)"
        )
        report.notes += [("* " if t is chosen else "  ") + t.describe() for t in threads]
    report.source_thread = f"thread {chosen.number}" if chosen else "the log"
    agent = next(
        (
            m.group(1)
            for _, req, _ in pairs
            if (m := _AGENT.search(str(_header(req, "user-agent"))))
        ),
        None,
    )
    side = [_side(line, req, resp, others) for line, req, resp in pairs if line not in main]
    source = {
        "kind": "import",
        "format": "api-log",
        "path": str(path),
        "version": agent,
        "notes": list(NOTES),
        "side_calls": side,
        "skipped": dict(report.skipped),
    }
    if len(threads) > 1 and chosen is not None:
        source["thread"] = chosen.number
        source["threads"] = [
            {
                "number": t.number,
                "model": t.model,
                "requests": len(t.lines),
                "tool_calls": t.tool_calls,
                "prompt": t.prompt[:200],
            }
            for t in threads
        ]
    start = epoch_of(pairs[0][1].get("timestamp"))
    with TraceWriter(
        output,
        Header(created=created_at(start), source=source, tracer_version=__version__, paths=None),
        keep_time=True,
        flush=False,
        atomic=True,
    ) as writer:
        b = emit_log(path, pairs, main, writer, report, others)
    report.count("side calls", len(side))
    report.count("events", b.events)
    return report


def _header(request: dict[str, Any], name: str) -> Any:
    headers = request.get("headers")
    if not isinstance(headers, dict):
        return None
    return next((v for k, v in headers.items() if str(k).lower() == name), None)


def _side(
    line: int, request: dict[str, Any], response: dict[str, Any], others: list[Thread] | None = None
) -> dict[str, Any]:
    body = request["body"]
    message = parse_response(response) or {}
    blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
    text = "".join(str(b.get("text", "")) for b in blocks)
    other = next((t for t in others or [] if line in t.lines), None)
    purpose = (
        "quota probe"
        if body.get("max_tokens") == 1
        else (
            f"thread {other.number}" if other else "other thread" if body.get("tools") else "helper"
        )
    )
    return {
        "line": line,
        "model": body.get("model"),
        "max_tokens": body.get("max_tokens"),
        "stream": bool(body.get("stream")),
        "messages": len(body.get("messages") or []),
        "purpose": purpose,
        "stop_reason": message.get("stop_reason"),
        "usage": message.get("usage"),
        "text": text[:80],
    }


def emit_log(
    path: Path,
    pairs: list[tuple[int, dict[str, Any], dict[str, Any]]],
    main: set[int],
    emit: Callable[[Event], Any],
    report: ImportReport,
    others: list[Thread] | None = None,
) -> TraceBuilder:
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
            info = _side(line, request, response, others)
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
        for number, status in enumerate(
            [*earlier, response.get("status_code")] if earlier else [], start=1
        ):
            b._emit(
                HttpAttempt,
                request_index=b.request_index,
                attempt=number,
                status=status,
                error=f"HTTP {status}" if status != 200 else None,
            )
        message = parse_response(response)
        if message is not None and not (
            isinstance(message.get("content"), list)
            and all(isinstance(b, dict) for b in message["content"])
        ):
            message = None  # a response whose blocks cannot be read: no message
        report.count("model calls")
        b.at(epoch_of(response.get("timestamp")))
        if message is None or response.get("status_code", 200) != 200:
            b.end("model_error", f"HTTP {response.get('status_code')}: no message in the log")
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
) -> tuple[set[int], dict[int, list[Any]]]:
    """Failed calls sent again with the same body are attempts of one request, not turns.

    Returns the lines of those failed attempts, and for each request that followed them the
    statuses they got.
    """
    retried: set[int] = set()
    before: dict[int, list[Any]] = {}
    carry: list[Any] = []
    for (line, req, resp), nxt in zip(mains, [*mains[1:], None], strict=True):
        failed = resp.get("status_code", 200) != 200 or parse_response(resp) is None
        if failed and nxt is not None and nxt[1]["body"] == req["body"]:
            carry.append(resp.get("status_code"))
            retried.add(line)
            continue
        if carry:
            before[line], carry = carry, []
    return retried, before


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
                ToolResult(
                    tid,
                    str(use.get("name", "unknown")),
                    use.get("input"),
                    block,
                    m,
                    block.get("content"),
                    holder.get(tid, ""),
                )
            )
            report.count("tool results")
    wire.place(p + 1, nxt, results)
    b.append([*assistant, *results])


def _latency(request: dict[str, Any], response: dict[str, Any]) -> int | None:
    start, end = request.get("timestamp"), response.get("timestamp")
    if isinstance(start, int | float) and isinstance(end, int | float) and end >= start:
        return int((end - start) * 1000)
    return None
