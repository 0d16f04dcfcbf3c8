"""The conversations in one API log: which requests belong to which agent loop.

A wire log (claude-trace's RawPair lines) records every ``/v1/messages`` call Claude Code made,
and more than one loop can be in it: the main session, a subagent (its own system prompt and
prompt, with tools), even a second session logged into the same file. Each loop resends its whole
history every time, so its requests share their model and their first message: that pair is the
thread's key. Calls that send no tools, and quota probes (``max_tokens: 1``), are no loop at all:
:func:`side_call` says what each such call (or a request of another thread) was for.
``tracer import api-log --list`` prints the threads; ``--thread N`` imports one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.importers.api_log.sse import parse_response
from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport
from tracer.text.cells import clip


def _strip_cache(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache(v) for v in value]
    return value


def thread_key(body: dict[str, Any]) -> str:
    first = (body.get("messages") or [None])[0]
    return json.dumps([body.get("model"), _strip_cache(first)], sort_keys=True)


def first_prompt(messages: list[Any]) -> str:
    for api in messages:
        if isinstance(api, dict) and api.get("role") == "user":
            content = api.get("content")
            if isinstance(content, str):
                return content
            texts = [
                str(b.get("text", ""))
                for b in content or []
                if isinstance(b, dict)
                and b.get("type") == "text"
                and not str(b.get("text", "")).startswith("<")
            ]
            if texts:
                return texts[0]
    return ""


def _readable(message: Any) -> bool:
    """A message of the shape the API takes: content text, or a list of block objects."""
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    return isinstance(content, str) or (
        isinstance(content, list) and all(isinstance(b, dict) for b in content)
    )


def pairs_of(
    records: list[tuple[int, dict[str, Any]]], report: ImportReport
) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """The lines that are a ``/v1/messages`` request (with readable messages) and its response."""
    out = []
    request: Any  # the line's JSON, of any shape: used as a dict once its body is one
    for line, rec in records:
        request, response = rec.get("request"), rec.get("response")
        body = request.get("body") if isinstance(request, dict) else None
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("messages"), list)
            or not all(_readable(m) for m in body["messages"])
            or "/v1/messages" not in str(request.get("url", "/v1/messages"))
            or "count_tokens" in str(request.get("url", ""))
        ):
            report.skip("lines that are not /v1/messages request/response pairs")
            continue
        out.append((line, request, response if isinstance(response, dict) else {}))
    return out


@dataclass
class Thread:
    """One conversation in the log: its own model and first message, and the lines it holds."""

    number: int
    key: str
    lines: list[int]
    model: str
    prompt: str
    tool_calls: int = 0

    def describe(self) -> str:
        return (
            f"thread {self.number}: {self.model}, {len(self.lines)} request(s), "
            f"{self.tool_calls} tool call(s): {clip(self.prompt, 50)}"
        )


def find_threads(pairs: list[tuple[int, dict[str, Any], dict[str, Any]]]) -> list[Thread]:
    """The log's agent loops, in order of their first request.

    A loop sends tools and is not a quota probe (``max_tokens: 1``); its requests share a model
    and a first message. Claude Code's own main loop, a subagent, or a second session logged
    into the same file: each is a conversation of its own.
    """
    threads: dict[str, Thread] = {}
    for line, req, _ in pairs:
        body = req["body"]
        if not body.get("tools") or body.get("max_tokens") == 1:
            continue
        key = thread_key(body)
        if key not in threads:
            threads[key] = Thread(
                len(threads) + 1, key, [], str(body.get("model")), first_prompt(body["messages"])
            )
        thread = threads[key]
        thread.lines.append(line)
        thread.tool_calls = sum(
            1
            for m in body["messages"]
            if isinstance(m, dict) and m.get("role") == "assistant"
            for b in m.get("content") or []
            if isinstance(b, dict) and b.get("type") == "tool_use"
        )
    return list(threads.values())


def side_call(
    line: int, request: dict[str, Any], response: dict[str, Any], others: list[Thread] | None = None
) -> dict[str, Any]:
    """What a request outside the imported loop was for, as the header lists it: a quota probe
    (``max_tokens: 1``), a request of another thread (``others``), or a helper call without
    tools (titles, spinner words), with the size of what it sent and the start of its answer."""
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


def list_threads(path: str | Path) -> list[str]:
    """One line per conversation of the log, numbered as ``--thread N`` takes them."""
    report = ImportReport(source=str(path))
    pairs = pairs_of(read_jsonl(Path(path), report), report)
    threads = find_threads(pairs)
    if not threads:
        raise UserError("no request with tools: no agent loop in this log", path)
    return [t.describe() for t in threads]
