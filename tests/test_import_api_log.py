"""An API log (claude-trace's JSON lines) imports as the main loop, its side calls set apart.

A streamed answer is folded back into one message; each main request is rebuilt to the bytes the
log recorded; the small model's quota probes and other side calls go to the header, not the loop;
a failed attempt that was retried is an attempt of the same call; a torn last line is dropped and
counted; and no authorization header or API key reaches the trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from import_fixtures_helpers import API_LOG, _import, _of, _records

from tracer.cli.main import main
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace


def test_sse_stream_is_folded_into_a_message() -> None:
    from tracer.importers.api_log.sse import accumulate, sse_events

    raw = "".join(
        f"event: x\ndata: {json.dumps(e)}\n\n"
        for e in [
            {
                "type": "message_start",
                "message": {"id": "m", "model": "x", "content": [], "usage": {"input_tokens": 5}},
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "ping"},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "t", "name": "Bash", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"comm'},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": 'and": "ls"}'},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
    )
    message = accumulate(sse_events(raw))
    assert message["content"] == [
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}},
    ]
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 5, "output_tokens": 9}


@pytest.mark.skipif(not API_LOG.is_file(), reason=f"fixture not found: {API_LOG}")
def test_api_log_main_loop_and_side_calls(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    events = _import(API_LOG, out, "api-log")
    assert validate_trace(out)[1] == []
    pairs = _records(API_LOG)
    main_bodies = [
        p["request"]["body"]
        for p in pairs
        if p["request"]["body"]["model"].startswith("claude-sonnet")
    ]
    requests = _of(events, "request")
    assert [r.message_count for r in requests] == [1, 3, 5, 7, 9, 11, 13]
    # Each main request is rebuilt exactly as logged (its bytes match the logged content-length).
    rebuilt = [r.body for r in rebuild_requests(events)]
    assert rebuilt == main_bodies
    lengths = [
        int(p["request"]["headers"]["content-length"])
        for p in pairs
        if p["request"]["body"]["model"].startswith("claude-sonnet")
    ]
    assert [r.bytes for r in requests] == lengths
    tools = [e.tool for e in _of(events, "tool_run")]
    assert tools == ["TodoWrite", "LS", "Bash", "TodoWrite", "Write", "TodoWrite"]
    side = TraceReader(out).header["source"]["side_calls"]
    assert len(side) == 12 and sum(s["purpose"] == "quota probe" for s in side) == 8
    assert all(s["model"] == "claude-3-5-haiku-20241022" for s in side)
    assert events[-1].kind == "terminal" and events[-1].reason == "completed"
    doctor = pytest.importorskip("tracer.doctor")
    assert [f for f in doctor.run_doctor(TraceReader(out)) if f.severity == "error"] == []


@pytest.mark.skipif(not API_LOG.is_file(), reason=f"fixture not found: {API_LOG}")
def test_api_log_never_carries_auth_headers(tmp_path: Path) -> None:
    assert b"[REDACTED]" in API_LOG.read_bytes()  # the fixture does hold them
    out = tmp_path / "t.jsonl"
    assert main(["import", "api-log", str(API_LOG), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8").lower()
    for secret in ("[redacted]", "authorization", "x-api-key"):
        assert secret not in text


def _sse(message: dict[str, Any]) -> str:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                **{k: v for k, v in message.items() if k not in ("content", "stop_reason")},
                "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
    ]
    for i, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            events.append(
                {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                }
            )
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"]},
            "usage": {"output_tokens": 7},
        }
    )
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def _pair(
    body: dict[str, Any], status: int = 200, message: dict[str, Any] | None = None, t: float = 0.0
) -> dict[str, Any]:
    headers = {"authorization": "Bearer sk-secret-123", "x-api-key": "sk-secret-456"}
    response: dict[str, Any] = {
        "timestamp": t + 1,
        "status_code": status,
        "headers": {},
        "body": None,
    }
    if message is not None:
        response["body_raw"] = _sse(message)
    return {
        "request": {
            "timestamp": t,
            "method": "POST",
            "headers": headers,
            "url": "https://api.anthropic.com/v1/messages",
            "body": body,
        },
        "response": response,
    }


def test_api_log_retries_are_attempts_and_a_torn_line_is_dropped(tmp_path: Path) -> None:
    tools = [{"name": "Read", "input_schema": {"type": "object"}}]
    first = {
        "model": "big",
        "max_tokens": 100,
        "tools": tools,
        "stream": True,
        "messages": [{"role": "user", "content": "read x"}],
    }
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "x"}}
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": [use]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "hello"}],
            },
        ],
    }
    pairs = [
        _pair(
            {"model": "small", "max_tokens": 1, "messages": [{"role": "user", "content": "q"}]},
            message={"id": "p", "model": "small", "content": [], "stop_reason": "max_tokens"},
        ),
        _pair(first, status=529, t=1),
        _pair(
            first,
            message={"id": "m1", "model": "big", "content": [use], "stop_reason": "tool_use"},
            t=2,
        ),
        _pair(
            second,
            message={
                "id": "m2",
                "model": "big",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "it says hello"}],
            },
            t=5,
        ),
    ]
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(p) + "\n" for p in pairs) + '{"request": {"bo', encoding="utf-8"
    )
    from tracer.importers.api_log.importer import import_api_log

    out = tmp_path / "t.jsonl"
    report = import_api_log(log, out)
    events = list(TraceReader(out))
    assert validate_trace(out)[1] == []
    assert report.skipped == {"torn last line": 1}
    assert report.counts["side calls"] == 1 and report.counts["failed attempts retried"] == 1
    assert [(e.request_index, e.attempt, e.status) for e in _of(events, "http_attempt")] == [
        (1, 1, 529),
        (1, 2, 200),
    ]
    assert [e.attempts for e in _of(events, "response")] == [2, 1]
    assert [r.body for r in rebuild_requests(events)] == [first, second]
    (run,) = _of(events, "tool_run")
    assert (run.tool, run.input, run.output) == ("Read", {"file_path": "x"}, "hello")
    assert [e.line for e in _of(events, "debug_hook")][-2:] == [
        "[DEBUG] Loop turn: 2 messages: 3",
        "[DEBUG] needsFollowUp: false tool_use blocks: 0",
    ]
    assert "sk-secret" not in out.read_text(encoding="utf-8")
