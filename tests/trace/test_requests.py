"""Every request rebuilds byte for byte from a trace that stores it only by reference.

The proof is the SHA-256 of the body the SDK actually sent (taken on the wire by the seam's HTTP
event hook) against the hash of :func:`rebuild_requests`'s output.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

RECORDINGS = sorted(RECORDINGS_DIR.rglob("*.trace.jsonl"))


def _check_hashes(events: list[Any]) -> int:
    rebuilt = list(rebuild_requests(events))
    sent = [e for e in events if e.kind == "request"]
    assert len(rebuilt) == len(sent) > 0
    for request in rebuilt:
        body = request.encode()
        assert len(body) == request.event.bytes, f"request {request.event.request_index} size"
        assert hashlib.sha256(body).hexdigest() == request.event.sha256, (
            f"request {request.event.request_index} does not rebuild byte for byte"
        )
    return len(rebuilt)


def test_recordings_exist() -> None:
    assert RECORDINGS, "recordings/ holds no traces"


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_every_bundled_request_rebuilds_byte_for_byte(path: Path) -> None:
    _check_hashes(list(TraceReader(path)))


def test_fresh_recording_rebuilds_and_stays_small(main_walk: Any) -> None:
    assert _check_hashes(main_walk.events) == 4
    requests = main_walk.of("request")
    # Stored by reference: each request names the previous one as its prefix.
    assert [r.prefix_request for r in requests] == [None, 1, 2, 3]
    assert [r.prefix_len for r in requests] == [0, 1, 3, 5]
    assert all(len(r.tail) == 2 for r in requests[1:])
    assert requests[0].params is not None and all(r.params is None for r in requests[1:])


def test_rebuild_with_retries_faults_and_feedback(record: Any) -> None:
    rec = record(
        {
            "attachments": [{"type": "skill_listing", "content": "Skills: 无."}],
            "workspace": {"files": {"a.txt": "中文 text\n"}},
            "permissions": {
                "allow": ["Read"],
                "decisions": [{"decision": "approve", "feedback": "好的 go on"}],
            },
            "responses": [
                {
                    "thinking": "t",
                    "text": "reading",
                    "faults": [{"status": 529}],
                    "tool_use": [
                        {"name": "Read", "input": {"file_path": "a.txt"}},
                        {"name": "Bash", "input": {"command": "echo 😀"}},
                    ],
                },
                {
                    "text": "cut then fine",
                    "faults": [{"cut_after": 4}],
                    "tool_use": [{"name": "Read", "input": {"file_path": "missing"}}],
                },
                {"text": "done"},
            ],
        }
    )
    assert _check_hashes(rec.events) == 3


def test_rebuilt_bodies_hold_every_result(main_walk: Any) -> None:
    bodies = main_walk.requests()
    last = json.dumps(bodies[-1]["messages"], ensure_ascii=False)
    for mapped in main_walk.of("mapping"):
        assert mapped.tool_use_id in last


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_messages_are_written_once_and_referenced_after(path: Path) -> None:
    seen: set[str] = set()
    events = list(TraceReader(path))
    for event in events:
        if event.kind == "message":
            assert event.uuid not in seen, f"message {event.uuid} written twice"
            seen.add(event.uuid)
        elif event.kind == "request":
            for ref in event.tail:
                for uuid, _ in ref["parts"]:
                    assert uuid in seen, f"request {event.request_index} names unknown {uuid}"
        elif event.kind == "wrapping":
            assert event.message_uuid in seen
            assert event.source_tool_assistant_uuid in seen
    assert events[-1].kind == "terminal", "every ending is a trace event"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


def _breakpoints(body: dict[str, Any]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, message in enumerate(body["messages"])
        if isinstance(message["content"], list)
        for j, block in enumerate(message["content"])
        if "cache_control" in block
    ]


def test_the_cache_breakpoint_moves_to_the_newest_block_every_request(main_walk: Any) -> None:
    bodies = main_walk.requests()  # each one's hash is the sent body's (the tests above)
    assert _check_hashes(main_walk.events) == len(bodies) == 4
    for body in bodies:
        last = body["messages"][-1]
        assert body["messages"][-1]["role"] == "user"
        assert _breakpoints(body) == [(len(body["messages"]) - 1, len(last["content"]) - 1)]
        assert last["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in json.dumps(body.get("system"))
    # The first prompt is a string in the history; the request carries it as one text block.
    assert bodies[0]["messages"][0]["content"][0]["type"] == "text"
    # Only requests carry it: the stored messages (the history) never do.
    for message in main_walk.of("message"):
        assert "cache_control" not in json.dumps(message.content)


def test_a_trace_from_before_the_breakpoint_rebuilds_without_one() -> None:
    old = Path(__file__).parents[1] / "replay" / "fixtures" / "main-walk.trace.jsonl"
    events = list(TraceReader(old))
    assert all(e.cache_control is None for e in events if e.kind == "request")
    _check_hashes(events)
    assert all(_breakpoints(r.body) == [] for r in rebuild_requests(events))


def test_the_breakpoint_copies_and_never_touches_the_history() -> None:
    from tracer.model.api_messages import with_cache_breakpoint

    block = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
    wire = [{"role": "user", "content": "hi"}, {"role": "user", "content": [block]}]
    marked = with_cache_breakpoint(wire)
    assert marked[1]["content"] == [{**block, "cache_control": {"type": "ephemeral"}}]
    assert "cache_control" not in block and wire[1]["content"] == [block]
    assert with_cache_breakpoint(wire[:1])[0]["content"] == [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    ]
    assert wire[0]["content"] == "hi" and with_cache_breakpoint([]) == []
