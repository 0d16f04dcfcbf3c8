"""``--strip-prose``: Claude Code's own text (system prompt, tool descriptions, system
reminders) kept only as its size and sha256, and the trace still rebuilds every request."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import anthropic

from tracer.agent.scripted import ScriptedResponse, ScriptedTransport
from tracer.claude_code.capture import Capture
from tracer.claude_code.live import LiveTrace
from tracer.claude_code.prose import is_marked, mark, strip_lines, strip_trace
from tracer.claude_code.server import ScriptedBackend, WireServer
from tracer.trace.reader import TraceReader
from tracer.trace.redact import Redactor
from tracer.trace.requests import rebuild_requests

SYSTEM = "You are a careful assistant whose words are not ours to bundle."
TOOL_TEXT = "Runs a shell command, described at length by its maker."
PARAM_TEXT = "The command line to run."
REMINDER = "Context the client adds on its own."
TOOL = {
    "name": "Bash",
    "description": TOOL_TEXT,
    "input_schema": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": PARAM_TEXT}},
    },
}


def _recorded(tmp_path: Path) -> Path:
    trace = tmp_path / "cc.trace.jsonl"
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}))
    live = LiveTrace(trace, {"path": "test"})
    capture.on_pair = live.update
    script = [ScriptedResponse([{"type": "text", "text": "Hello."}], "end_turn")]
    with WireServer(ScriptedBackend(ScriptedTransport(script, seed="p")), capture) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0)
        content: Any = [
            {"type": "text", "text": f"<system-reminder>{REMINDER}</system-reminder>"},
            {"type": "text", "text": "Say hello."},
        ]
        with client.messages.stream(
            model="m",
            max_tokens=100,
            system=[{"type": "text", "text": SYSTEM}],
            tools=[TOOL],
            messages=[{"role": "user", "content": content}],
        ) as stream:
            stream.get_final_message()
        assert capture.settle(10)
    live.close(capture.pairs)
    return trace


def test_the_text_goes_and_its_size_and_hash_stay(tmp_path: Path) -> None:
    trace = _recorded(tmp_path)
    before = trace.read_text(encoding="utf-8")
    assert SYSTEM in before and TOOL_TEXT in before and REMINDER in before
    strip_trace(trace)
    after = trace.read_text(encoding="utf-8")
    for text in (SYSTEM, TOOL_TEXT, PARAM_TEXT, REMINDER):
        assert text not in after
        assert mark(text) in after
    digest = hashlib.sha256(SYSTEM.encode()).hexdigest()
    assert mark(SYSTEM) == f"[Claude Code's text: {len(SYSTEM)} bytes, sha256 {digest}]"
    assert is_marked(mark(SYSTEM)) and not is_marked(SYSTEM)
    assert "Say hello." in after and "Hello." in after  # the session itself stays


def test_the_stripped_trace_still_rebuilds_each_request(tmp_path: Path) -> None:
    trace = _recorded(tmp_path)
    strip_trace(trace)
    reader = TraceReader(trace)
    (request,) = rebuild_requests(list(reader))
    body = request.encode()
    assert request.event.bytes == len(body)
    assert request.event.sha256 == hashlib.sha256(body).hexdigest()
    assert request.body["system"][0]["text"] == mark(SYSTEM)
    assert "--strip-prose" in reader.header["source"]["prose"]


def test_a_transcripts_reminders_are_stripped(tmp_path: Path) -> None:
    transcript = tmp_path / "t.claude-code.jsonl"
    transcript.write_text(
        '{"type":"user","message":{"content":"<system-reminder>' + REMINDER + "</system-reminder>"
        'hi"}}\n',
        encoding="utf-8",
    )
    strip_lines(transcript)
    text = transcript.read_text(encoding="utf-8")
    assert REMINDER not in text and mark(REMINDER) in text and "hi" in text
