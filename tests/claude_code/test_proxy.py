"""``record --claude-code --prompt``: the loopback proxy between Claude Code and the API.

The upstream here is a fake one on loopback (tracer's scripted server), never the network. The
proxy passes the body and the stream through unchanged, puts the user's key on the way up only,
and keeps no key in what it writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from claude_helpers import real_claude
from run_helpers import Recording, run_tracer

from tracer.agent.scripted import ScriptedResponse, ScriptedTransport
from tracer.claude_code.capture import Capture, Exchange
from tracer.claude_code.proxy import ProxyBackend
from tracer.claude_code.server import ScriptedBackend, WireServer
from tracer.claude_code.session import transcript_path
from tracer.trace.redact import Redactor

REAL_KEY = "sk-ant-api03-" + "r" * 40
TOKEN = "tracer-" + "0" * 32  # the session's key, as session_token() makes one
TOOL = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}
HELLO = [ScriptedResponse([{"type": "text", "text": "Hello from upstream."}], "end_turn")]


class Upstream(ScriptedBackend):
    """The fake API: scripted answers, and the key each request arrived with."""

    def __init__(self) -> None:
        super().__init__(ScriptedTransport(list(HELLO), seed="up"))
        self.keys: list[str | None] = []
        self.bodies: list[bytes] = []

    def answer(self, exchange: Exchange) -> Any:
        headers = {k.lower(): v for k, v in exchange.request_headers.items()}
        self.keys.append(headers.get("x-api-key"))
        self.bodies.append(exchange.body)
        return super().answer(exchange)


@pytest.fixture
def upstream(tmp_path: Path) -> Any:
    backend = Upstream()
    capture = Capture(tmp_path / "upstream.jsonl", Redactor.from_environ({}))
    with WireServer(backend, capture) as server:
        yield server, backend, capture
    capture.close()


def test_the_proxy_passes_requests_and_streams_through_unchanged(
    upstream: Any, tmp_path: Path
) -> None:
    server, backend, seen_up = upstream
    proxy = ProxyBackend(server.url, REAL_KEY)
    mine = Capture(tmp_path / "proxy.jsonl", Redactor.from_environ({}, api_key=REAL_KEY))
    with WireServer(proxy, mine, TOKEN) as front:
        client = anthropic.Anthropic(base_url=front.url, api_key=TOKEN, max_retries=0)
        with client.messages.stream(
            model="m", max_tokens=100, tools=[TOOL], messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            message = stream.get_final_message()
        assert mine.settle(10) and seen_up.settle(10)
    proxy.close()
    mine.close()
    assert message.content[0].text == "Hello from upstream."
    assert backend.keys == [REAL_KEY]  # the user's key goes up, the session's does not
    (pair,) = mine.pairs
    assert json.loads(backend.bodies[0]) == pair["request"]["body"]
    assert pair["response"]["body_raw"] == seen_up.pairs[0]["response"]["body_raw"]
    written = (tmp_path / "proxy.jsonl").read_text(encoding="utf-8")
    assert REAL_KEY not in written and TOKEN not in written


def test_a_request_without_the_sessions_key_goes_nowhere(upstream: Any, tmp_path: Path) -> None:
    """Any local user can reach a loopback port: without the session's key, a 401, and the
    user's key is never spent on the request."""
    server, backend, _ = upstream
    proxy = ProxyBackend(server.url, REAL_KEY)
    mine = Capture(tmp_path / "proxy.jsonl", Redactor.from_environ({}, api_key=REAL_KEY))
    with WireServer(proxy, mine, TOKEN) as front:
        client = anthropic.Anthropic(base_url=front.url, api_key="guess", max_retries=0)
        with pytest.raises(anthropic.AuthenticationError):
            client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
            )
        body = {"model": "m", "max_tokens": 5, "messages": []}
        assert httpx2.post(front.url + "/v1/messages", json=body).status_code == 401  # no key
    proxy.close()
    mine.close()
    assert backend.keys == [] and mine.pairs == []


def test_an_upstream_that_cannot_be_reached_is_a_500_not_a_hang(tmp_path: Path) -> None:
    proxy = ProxyBackend("http://127.0.0.1:9", REAL_KEY)  # the discard port: nothing listens
    capture = Capture(tmp_path / "proxy.jsonl", Redactor.from_environ({}))
    with WireServer(proxy, capture) as front:
        client = anthropic.Anthropic(base_url=front.url, api_key=TOKEN, max_retries=0)
        with pytest.raises(anthropic.InternalServerError):
            client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
            )
        assert capture.settle(10)
    capture.close()
    assert capture.pairs[0]["response"]["error"].startswith("ConnectError")


def test_a_prompt_recorded_through_the_proxy(upstream: Any, tmp_path: Path) -> None:
    claude = real_claude()
    server, backend, _ = upstream
    trace = tmp_path / "p.trace.jsonl"
    done = run_tracer(
        "record", "--claude-code", "--prompt", "Say hello.", "-o", str(trace),
        env={"TRACER_CLAUDE": str(claude), "ANTHROPIC_BASE_URL": server.url,
             "ANTHROPIC_API_KEY": REAL_KEY},
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run = Recording(trace)
    assert run.terminal.reason == "completed"
    assert len(run.of("response")) == 1
    assert set(backend.keys) == {REAL_KEY}
    for path in (trace, transcript_path(trace)):
        text = path.read_text(encoding="utf-8")
        assert REAL_KEY not in text and "Hello from upstream." in text
