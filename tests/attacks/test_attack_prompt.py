"""The attack of issue 20, end to end under ``record --prompt``: a command that reads the
recorder's environment every way it can and prints it re-encoded. Against a loopback stand-in
for the API, the secrets must reach neither a request sent to the model nor the trace, with the
sandbox (the default) and without it.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.scripted import ScriptedResponse, sse_events

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-prompt-attack-0123456789",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/promptATTACK0123",
    "GITHUB_TOKEN": "ghp_promptattack0123456789abcdefghijklm",
}
LEAK = (
    "cat /proc/$PPID/environ | base64 -w0; echo; env | base64 -w0; echo; "
    "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -E 'KEY|TOKEN' | rev"
)


class _Api(BaseHTTPRequestHandler):
    bodies: list[bytes]
    answers: list[ScriptedResponse]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.bodies.append(body)
        index = min(len(self.bodies) - 1, len(self.answers) - 1)
        events = sse_events(self.answers[index], f"msg_{index}", "claude-test", 10)
        data = b"".join(events)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def api() -> Iterator[tuple[str, list[bytes]]]:
    bodies: list[bytes] = []
    answers = [
        ScriptedResponse(
            [{"type": "tool_use", "id": "toolu_leak", "name": "Bash", "input": {"command": LEAK}}]
        ),
        ScriptedResponse([{"type": "text", "text": "done"}]),
    ]
    handler = type("Api", (_Api,), {"bodies": bodies, "answers": answers})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    server.shutdown()
    server.server_close()


def _forms(value: str) -> list[str]:
    raw = value.encode()
    return [value, base64.b64encode(raw).decode()[4:-4], value[::-1], raw.hex()]


@pytest.mark.parametrize("walls", [[], ["--no-sandbox"]])
def test_no_secret_reaches_the_model_or_the_trace(
    tracer_cli: Any, api: tuple[str, list[bytes]], tmp_path: Path, walls: list[str]
) -> None:
    url, bodies = api
    trace = tmp_path / "p.trace.jsonl"
    proc = tracer_cli(
        "record",
        "--prompt",
        "look around",
        "--allow",
        "Bash",
        "-o",
        str(trace),
        *walls,
        env={**SECRETS, "ANTHROPIC_BASE_URL": url, "NO_PROXY": "127.0.0.1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert len(bodies) == 2  # the command ran and its result went back to the model
    second = json.loads(bodies[1])
    results = [b for m in second["messages"] for b in m["content"] if isinstance(b, dict)]
    assert any(b.get("type") == "tool_result" for b in results)
    everything = b"".join(bodies).decode() + trace.read_text() + proc.stdout + proc.stderr
    for name, value in SECRETS.items():
        for form in _forms(value):
            assert form not in everything, (name, form)
