"""The scripted model: real server-sent events, so the SDK's own stream parser does the work."""

from __future__ import annotations

import json
from typing import Any

from tracer.agent.scripted import ScriptedResponse, ScriptedTransport, sse_events


def _events(raw: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for chunk in raw:
        head, data = chunk.decode().strip().split("\n")
        out.append((head.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def test_sse_stream_has_the_apis_shape() -> None:
    response = ScriptedResponse(
        [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "x" * 60},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "Bash",
                "input": {"command": "git status --porcelain=v1"},
            },
        ]
    )
    events = _events(sse_events(response, "msg_1", "m", 123))
    names = [name for name, _ in events]
    assert names[:2] == ["message_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert events[0][1]["message"]["usage"]["input_tokens"] == 123
    deltas = [d["delta"] for n, d in events if n == "content_block_delta"]
    kinds = [d["type"] for d in deltas]
    assert {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"} <= set(kinds)
    assert kinds.count("text_delta") > 1, "text arrives in several chunks"
    partial = "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta")
    assert json.loads(partial) == {"command": "git status --porcelain=v1"}
    assert sum(d["type"] == "input_json_delta" for d in deltas) > 2
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_input_tokens_grow_with_the_history(main_walk: Any) -> None:
    tokens = [r.usage["input_tokens"] for r in main_walk.of("response")]
    sizes = [r.bytes for r in main_walk.of("request")]
    assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)
    assert sizes == sorted(sizes)


def test_a_script_that_runs_out_ends_politely() -> None:
    transport = ScriptedTransport([])
    assert transport._response(0).stop_reason == "end_turn"


def test_a_validator_refuses_a_request_with_http_400(record: Any) -> None:
    def refuse(payload: dict[str, Any]) -> str | None:
        return "messages: scripted refusal" if len(payload["messages"]) > 1 else None

    rec = record(
        {
            "permissions": {"allow": ["Glob"]},
            "responses": [
                {"tool_use": [{"name": "Glob", "input": {"pattern": "*"}}]},
                {"text": "never"},
            ],
        },
        validator=refuse,
    )
    attempts = rec.of("http_attempt")
    assert [a.status for a in attempts][-1] == 400
    assert sum(a.status == 400 for a in attempts) == 1, "a 400 is not retried"
    assert rec.terminal.reason == "model_error"
    assert "scripted refusal" in rec.terminal.error
