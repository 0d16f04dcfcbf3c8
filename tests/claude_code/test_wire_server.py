"""The loopback Messages API that ``record --claude-code`` points the real Claude Code at,
driven here by the real ``anthropic`` SDK over a real socket (no ``claude`` needed): the
script is played in turn, side requests are answered without spending it, faults reach the
wire, and the capture holds no credential."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from tracer.agent.scripted import ScriptedResponse, ScriptedTransport
from tracer.claude_code.capture import Capture, Exchange
from tracer.claude_code.live import LiveTrace, claude_ending
from tracer.claude_code.server import ScriptedBackend, WireServer
from tracer.claude_code.side import is_loop_request, side_kind
from tracer.trace.reader import TraceReader
from tracer.trace.redact import Redactor

SECRET = "sk-ant-api03-" + "q" * 40
TOOL = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}
SCRIPT = [
    ScriptedResponse(
        [
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "toolu_01a", "name": "Bash", "input": {"command": "ls"}},
        ]
    ),
    ScriptedResponse([{"type": "text", "text": "Two files."}]),
]


def _client(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key=SECRET, max_retries=0)


def _loop(client: anthropic.Anthropic, messages: list[dict[str, Any]]) -> Any:
    with client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=1000, tools=[TOOL], messages=messages
    ) as stream:
        return stream.get_final_message()


@pytest.fixture
def served(tmp_path: Path) -> Any:
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}, api_key=SECRET))
    backend = ScriptedBackend(ScriptedTransport(list(SCRIPT), seed="t"))
    with WireServer(backend, capture) as server:
        yield server, capture
    capture.close()


def test_the_loops_requests_and_side_requests_are_told_by_shape() -> None:
    loop = {"model": "m", "max_tokens": 32000, "tools": [TOOL], "messages": []}
    assert is_loop_request(loop)
    assert not is_loop_request({**loop, "max_tokens": 1})  # a quota probe
    assert not is_loop_request({**loop, "tools": []})  # a helper call
    assert side_kind({**loop, "max_tokens": 1}) == "quota"
    schema = {"type": "json_schema", "schema": {"type": "object", "properties": {"title": {}}}}
    assert side_kind({"max_tokens": 100, "output_format": schema}) == "schema"


def test_the_script_is_played_in_turn_and_side_requests_do_not_spend_it(served: Any) -> None:
    server, capture = served
    client = _client(server.url)
    first = _loop(client, [{"role": "user", "content": "list"}])
    assert [b.type for b in first.content] == ["text", "tool_use"]
    # Between two turns, Claude Code's side requests: a count, a probe, a title with a schema.
    count = client.messages.count_tokens(model="m", messages=[{"role": "user", "content": "hi"}])
    assert count.input_tokens > 0
    probe = client.messages.create(
        model="m", max_tokens=1, messages=[{"role": "user", "content": "quota"}]
    )
    assert probe.stop_reason == "max_tokens"
    title = client.post(
        "/v1/messages",
        cast_to=object,
        body={
            "model": "haiku",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "name it"}],
            "output_format": {
                "type": "json_schema",
                "schema": {"type": "object", "properties": {"title": {"type": "string"}}},
            },
        },
    )
    assert json.loads(title["content"][0]["text"]) == {"title": "Scripted session"}
    history = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01a", "content": "a b"}],
        },
    ]
    second = _loop(client, history)
    assert capture.settle(10)
    assert second.content[0].text == "Two files."  # the script's second answer, not a third
    assert len(capture.pairs) == 5


def test_the_capture_keeps_no_credential(served: Any, tmp_path: Path) -> None:
    server, capture = served
    _loop(_client(server.url), [{"role": "user", "content": "list"}])
    assert capture.settle(10)
    text = (tmp_path / "wire.jsonl").read_text(encoding="utf-8")
    assert SECRET not in text
    pair = capture.pairs[0]
    assert "x-api-key" not in pair["request"]["headers"]
    assert "authorization" not in pair["request"]["headers"]
    assert pair["request"]["headers"]["user-agent"].startswith("Anthropic/Python")
    assert pair["response"]["body_raw"].startswith("event: message_start")


def test_a_request_without_stream_gets_the_same_answer_whole(served: Any) -> None:
    """2.1.88's fallback after a broken stream sends the same request unstreamed."""
    server, _ = served
    message = _client(server.url).messages.create(
        model="m", max_tokens=1000, tools=[TOOL], messages=[{"role": "user", "content": "list"}]
    )
    assert [b.type for b in message.content] == ["text", "tool_use"]
    assert message.content[1].input == {"command": "ls"}


def test_a_scripted_cut_cuts_the_connection(tmp_path: Path) -> None:
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}))
    faulty = ScriptedResponse(SCRIPT[1].blocks, faults=[{"cut_after": 3}])
    backend = ScriptedBackend(ScriptedTransport([faulty], seed="t"))
    body = {
        "model": "m",
        "max_tokens": 10,
        "stream": True,
        "tools": [TOOL],
        "messages": [{"role": "user", "content": "x"}],
    }
    with WireServer(backend, capture) as server, httpx2.Client() as client:
        with client.stream("POST", server.url + "/v1/messages", json=body) as response:
            assert response.status_code == 200
            with pytest.raises(httpx2.RemoteProtocolError):
                b"".join(response.iter_bytes())
        # Sent again, the same request gets the whole answer: the fault spent one attempt.
        again = client.post(server.url + "/v1/messages", json=body)
        assert "Two files." in again.text
        assert capture.settle(10)
    capture.close()
    assert capture.pairs[0]["response"]["error"].startswith("RemoteProtocolError")
    assert capture.pairs[0]["response"]["body_raw"].count("event:") == 3


def test_pairs_keep_the_order_their_requests_came_in(tmp_path: Path) -> None:
    """A cut exchange's server thread may write it down after its retry has finished (a busy
    machine): the session's pairs still hold the attempt before the retry."""
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}))
    cut = Exchange("POST", "/v1/messages", {}, b"{}", started=100.0, error="cut")
    retry = Exchange("POST", "/v1/messages", {}, b"{}", started=101.0)
    for exchange in (retry, cut):  # finished in this order
        capture.begin()
        capture.add(exchange)
    capture.close()
    assert [p["request"]["timestamp"] for p in capture.pairs] == [100.0, 101.0]
    assert capture.pairs[0]["response"]["error"] == "cut"


def test_the_trace_grows_as_the_session_runs(served: Any, tmp_path: Path) -> None:
    """Each finished exchange settles what it can; the loop's end waits for the session's."""
    server, capture = served
    trace = tmp_path / "live.trace.jsonl"
    live = LiveTrace(trace, {"path": "test"})
    capture.on_pair = live.update
    client = _client(server.url)
    first = _loop(client, [{"role": "user", "content": "list"}])
    assert capture.settle(10)
    kinds = [e.kind for e in TraceReader(trace)]
    assert "response" in kinds and "terminal" not in kinds
    history = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01a", "content": "a b"}],
        },
    ]
    _loop(client, history)
    assert capture.settle(10)
    assert live.close(capture.pairs) == 2
    events = list(TraceReader(trace))
    assert events[-1].kind == "terminal" and events[-1].reason == "completed"
    mapped = [e.block for e in events if e.kind == "mapping"]
    assert mapped == [{"type": "tool_result", "tool_use_id": "toolu_01a", "content": "a b"}]


def test_a_session_claude_code_stopped_at_max_turns_ends_so(served: Any, tmp_path: Path) -> None:
    """The wire shows an answer with tool calls and then nothing; Claude Code's own result line
    says whether that was ``--max-turns`` (the trace ends ``max_turns``) or not."""
    server, capture = served
    _loop(_client(server.url), [{"role": "user", "content": "list"}])
    assert capture.settle(10)
    stopped = b'{"type":"system"}\n{"type":"result","subtype":"error_max_turns","num_turns":1}\n'
    assert claude_ending(stopped) == "max_turns"
    assert claude_ending(b'{"type":"result","subtype":"success"}\n') is None
    assert claude_ending(b"not json\n") is None
    endings = {}
    for ending in ("max_turns", None):
        trace = tmp_path / f"{ending}.trace.jsonl"
        LiveTrace(trace, {"path": "test"}).close(capture.pairs, ending=ending)
        endings[ending] = list(TraceReader(trace))[-1].reason
    assert endings == {"max_turns": "max_turns", None: "aborted_tools"}


def test_a_session_stopped_before_its_first_request_still_ends(tmp_path: Path) -> None:
    """A stop signal while Claude Code starts (nothing on the wire yet): the trace ends with
    the stop, as a scripted recording's does, and validates, instead of a lone header."""
    from tracer.cli.main import main

    trace = tmp_path / "early.trace.jsonl"
    assert LiveTrace(trace, {"path": "test"}).close([], cut="stopped by SIGTERM") == 0
    (ended,) = list(TraceReader(trace))
    assert ended.kind == "terminal" and ended.error == "stopped by SIGTERM"
    assert main(["validate", str(trace)]) == 0
    assert main(["show", str(trace)]) == 0


def test_a_broken_stream_sent_again_unstreamed_is_one_turn(tmp_path: Path) -> None:
    """2.1.88 after a 529 and a cut stream: the same request again, then without ``stream``.
    The trace holds one request with three attempts, and holds the turn back while its last
    attempt has failed (a retry would change it)."""
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}))
    faulty = ScriptedResponse(SCRIPT[1].blocks, faults=[{"status": 529}, {"cut_after": 5}])
    trace = tmp_path / "cut.trace.jsonl"
    live = LiveTrace(trace, {"path": "test"})
    capture.on_pair = live.update
    body = {"model": "m", "max_tokens": 10, "tools": [TOOL]}
    body["messages"] = [{"role": "user", "content": "x"}]
    url = "/v1/messages"
    backend = ScriptedBackend(ScriptedTransport([faulty], seed="t"))
    with WireServer(backend, capture) as server, httpx2.Client(base_url=server.url) as client:
        assert client.post(url, json={**body, "stream": True}).status_code == 529
        with (
            client.stream("POST", url, json={**body, "stream": True}) as response,
            pytest.raises(httpx2.RemoteProtocolError),
        ):
            b"".join(response.iter_bytes())
        assert capture.settle(10)
        assert [e.kind for e in TraceReader(trace)][-1] == "message"  # the turn waits
        whole = client.post(url, json=body)  # no stream: the fallback
        assert whole.json()["content"][0]["text"] == "Two files."
        assert capture.settle(10)
    live.close(capture.pairs)
    events = list(TraceReader(trace))
    attempts = [(e.status, e.error) for e in events if e.kind == "http_attempt"]
    assert attempts[0] == (529, "HTTP 529") and attempts[2] == (200, None)
    assert attempts[1][0] == 200 and attempts[1][1].startswith("RemoteProtocolError")
    assert [e.kind for e in events].count("request") == 1
    assert events[-1].kind == "terminal" and events[-1].reason == "completed"


def test_a_stream_cut_and_never_sent_again_ends_the_loop_saying_so(tmp_path: Path) -> None:
    capture = Capture(tmp_path / "wire.jsonl", Redactor.from_environ({}))
    faulty = ScriptedResponse(SCRIPT[1].blocks, faults=[{"cut_after": 5}])
    body = {"model": "m", "max_tokens": 10, "stream": True, "tools": [TOOL]}
    body["messages"] = [{"role": "user", "content": "x"}]
    backend = ScriptedBackend(ScriptedTransport([faulty], seed="t"))
    with WireServer(backend, capture) as server, httpx2.Client(base_url=server.url) as client:
        with (
            client.stream("POST", "/v1/messages", json=body) as response,
            pytest.raises(httpx2.RemoteProtocolError),
        ):
            b"".join(response.iter_bytes())
        assert capture.settle(10)
    trace = tmp_path / "cut.trace.jsonl"
    LiveTrace(trace, {"path": "test"}).close(capture.pairs)
    end = list(TraceReader(trace))[-1]
    assert end.reason == "model_error"  # a partial stream is no answer, though it parses
    assert end.error.startswith("HTTP 200: RemoteProtocolError")
