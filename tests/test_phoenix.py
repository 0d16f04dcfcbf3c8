"""``export --otlp-endpoint`` into a real tracing backend: Arize Phoenix, read back through its API.

Phoenix runs locally with its own embedded SQLite store. It cannot share tracer's environment
(it pins an older ``anthropic``), so ``.ci/run`` installs it into ``.venv-phoenix`` and this
fixture starts ``phoenix serve`` from there (or from ``$TRACER_PHOENIX``, the path of a
``phoenix`` executable) on free loopback ports, in a temporary working directory. A bundled
recording goes in over OTLP/HTTP (protobuf, the only encoding Phoenix takes) and comes back out
through Phoenix's REST API (``/v1/projects/<project>/spans``): the spans, their parents, the
tool results, the four steps of the journey and what each request sent must all be there; a
subagent under its Task call, a refused request in red, an old import moved into the last 7
days. Outside CI, without Phoenix, the test is skipped; in CI (``CI`` set) a missing Phoenix is
a failure, so the test cannot quietly not run.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.files.paths import CHECKOUT, RECORDINGS_DIR
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader

# A server's cold start and ingestion: slow, and on one xdist worker so the server starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("phoenix")]

SUBAGENT = (
    Path(__file__).parent
    / "data"
    / "claude-code"
    / "layout-2.0"
    / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
)
START_TIMEOUT_S = 180  # a cold start on two busy cores: SQLite migrations, the web app
INGEST_TIMEOUT_S = 60


def _phoenix() -> str | None:
    given = os.environ.get("TRACER_PHOENIX")
    if given:
        return given
    if CHECKOUT is not None and (CHECKOUT / ".venv-phoenix" / "bin" / "phoenix").exists():
        return str(CHECKOUT / ".venv-phoenix" / "bin" / "phoenix")
    return shutil.which("phoenix")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a Phoenix server started for these tests."""
    exe = _phoenix()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Phoenix is not installed: .ci/run installs it into .venv-phoenix")
        pytest.skip("Phoenix is not installed (see .ci/run: .venv-phoenix)")
    work = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (work / "serve.log").open("w")
    proc = subprocess.Popen([exe, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"Phoenix exited ({proc.returncode}): {_tail(work / 'serve.log')}")
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"Phoenix did not start: {_tail(work / 'serve.log')}")
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _tail(path: Path) -> str:
    return " | ".join(path.read_text(errors="replace").splitlines()[-5:])


def _spans(base: str, trace_id: str, expected: int, since: str = "") -> list[dict[str, Any]]:
    """The trace's spans as Phoenix's REST API returns them, once all have been ingested
    (``since``: only spans that start after that ISO time, as the UI's time window asks)."""
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while True:
        found = []
        url = f"{base}/v1/projects/tracer/spans?limit=1000&trace_id={trace_id}"
        if since:
            url += f"&start_time={since}"
        try:
            data = _get(url)
            found = [s for s in data["data"] if s["context"]["trace_id"] == trace_id]
        except OSError:  # the project appears with its first span
            pass
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def _send(name: str, base: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, int]:
    capsys.readouterr()
    assert main(["export", name, "--otlp-endpoint", base, *extra]) == 0
    words = capsys.readouterr().err.split()  # sent N spans of trace ID to URL (protocol)
    return words[words.index("trace") + 1], int(words[1])


def test_a_recording_reads_back_from_phoenix(
    phoenix: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in list(os.environ):
        if key.startswith("OTEL_"):
            monkeypatch.delenv(key)
    trace_id, sent = _send("01-main-walk", phoenix, capsys)
    spans = _spans(phoenix, trace_id, sent)
    assert len(spans) == sent

    events = list(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
    (agent,) = [s for s in spans if s["parent_id"] is None]
    assert agent["name"] == "invoke_agent tracer" and agent["span_kind"] == "AGENT"
    children = [s for s in spans if s is not agent]
    assert all(s["parent_id"] == agent["context"]["span_id"] for s in children)

    chats = [s for s in children if s["name"].startswith("chat ")]
    responses = [e for e in events if e.kind == "response"]
    assert len(chats) == len(responses) and all(s["span_kind"] == "LLM" for s in chats)
    assert {s["attributes"]["gen_ai.response.id"] for s in chats} == {
        e.message_id for e in responses
    }

    tools = sorted(
        (s for s in children if s["name"].startswith("execute_tool ")),
        key=lambda s: s["start_time"],
    )
    mapped = {e.tool_use_id: e.block["content"] for e in events if e.kind == "mapping"}
    runs = [e for e in events if e.kind == "tool_run"]
    assert [s["name"] for s in tools] == [f"execute_tool {e.tool}" for e in runs]
    for span in tools:
        attrs = span["attributes"]
        assert span["span_kind"] == "TOOL"
        content = mapped[attrs["gen_ai.tool.call.id"]]
        text = content if isinstance(content, str) else "\n".join(b["text"] for b in content)
        assert attrs["gen_ai.tool.call.result"] == text == attrs["output.value"]
        assert [e["name"] for e in span["events"]] == list(STATIONS)
        assert [e["attributes"]["tracer.journey.step"] for e in span["events"]] == [1, 2, 3, 4]

    # What each request sent, as Phoenix's Messages view reads it: the history resent whole.
    chats.sort(key=lambda s: s["attributes"]["tracer.request.index"])
    for chat in chats:
        sent = json.loads(chat["attributes"]["gen_ai.input.messages"])
        assert len(sent) == chat["attributes"]["tracer.request.message_count"]
        shown = _input_messages(chat["attributes"])
        assert shown[0]["role"] == "system" and len(shown) == len(sent) + 1
    prompt = next(e for e in events if e.kind == "session_start").prompt
    first = next(e for e in events if e.kind == "tool_run").tool_use_id
    second = _input_messages(chats[1]["attributes"])[1:]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert prompt in second[0]["content"]
    assert second[1]["tool_calls"][0]["id"] == first
    assert (
        second[2]["tool_call_id"] == first and f"[tool_result for {first}]" in second[2]["content"]
    )


def test_a_result_that_never_went_back_shows_in_phoenix(
    phoenix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    trace_id, sent = _send("05-max-turns", phoenix, capsys)
    spans = _spans(phoenix, trace_id, sent)
    tools = sorted(
        (s for s in spans if s["name"].startswith("execute_tool ")), key=lambda s: s["start_time"]
    )
    last = [e["name"] for e in tools[-1]["events"]]
    # max_turns stopped the loop before the next State was built: nothing appended or resent.
    assert last == ["mapping", "wrapping"]
    (agent,) = [s for s in spans if s["parent_id"] is None]
    (end,) = [e for e in TraceReader(RECORDINGS_DIR / "05-max-turns.trace.jsonl")
              if e.kind == "terminal"]  # fmt: skip
    assert agent["attributes"]["tracer.terminal_reason"] == end.reason == "max_turns"


def _input_messages(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenInference's ``llm.input_messages.<i>.message.*`` back as a list of messages."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith("llm.input_messages."):
            index, _, rest = key.removeprefix("llm.input_messages.").partition(".message.")
            message = found.setdefault(int(index), {})
            if rest.startswith("tool_calls."):
                j, _, field = rest.removeprefix("tool_calls.").partition(".tool_call.")
                calls = message.setdefault("tool_calls", {})
                calls.setdefault(int(j), {})[field] = value
            else:
                message[rest] = value
    out = [found[i] for i in sorted(found)]
    for m in out:
        if "tool_calls" in m:
            m["tool_calls"] = [m["tool_calls"][j] for j in sorted(m["tool_calls"])]
    return out


def test_a_subagent_hangs_under_its_task_call_in_phoenix(
    phoenix: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "subagent.trace.jsonl"
    assert main(["import", "claude-code", str(SUBAGENT), "-o", str(trace)]) == 0
    trace_id, sent = _send(str(trace), phoenix, capsys, "--shift-to-now")
    spans = _spans(phoenix, trace_id, sent)
    assert len(spans) == sent
    by_id = {s["context"]["span_id"]: s for s in spans}
    (root,) = [s for s in spans if s["parent_id"] is None]
    subagents = [s for s in spans if s["span_kind"] == "AGENT" and s is not root]
    assert subagents
    for sub in subagents:
        task = by_id[sub["parent_id"]]
        assert task["span_kind"] == "TOOL" and task["attributes"]["gen_ai.tool.name"] in (
            "Task",
            "Agent",
        )
        assert task["parent_id"] == root["context"]["span_id"]
        assert any(s["parent_id"] == sub["context"]["span_id"] for s in spans)
    # An import keeps its content to itself unless asked (--otlp-content).
    assert not any("gen_ai.input.messages" in s["attributes"] for s in spans)


def test_a_refused_request_is_an_error_in_phoenix(
    phoenix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    trace_id, sent = _send("faults/08-api-invariants", phoenix, capsys)
    spans = _spans(phoenix, trace_id, sent)
    chats = [s for s in spans if s["span_kind"] == "LLM"]
    failed = [s for s in chats if s["status_code"] == "ERROR"]
    assert len(chats) == 2 and len(failed) == 1
    assert failed[0]["attributes"]["error.type"] == "invalid_request_error"
    assert "400" in failed[0]["status_message"]
    (agent,) = [s for s in spans if s["parent_id"] is None]
    assert agent["status_code"] == "ERROR"


def test_a_shifted_import_lands_in_the_default_window(
    phoenix: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "old.trace.jsonl"
    assert main(["import", "claude-code", str(SUBAGENT), "-o", str(trace)]) == 0
    week_ago = datetime.now(UTC) - timedelta(days=7)
    since = week_ago.strftime("%Y-%m-%dT%H:%M:%SZ")
    old_id, old_sent = _send(str(trace), phoenix, capsys)
    new_id, new_sent = _send(str(trace), phoenix, capsys, "--shift-to-now")
    assert len(_spans(phoenix, new_id, new_sent, since)) == new_sent
    # Sent as it is, the same session keeps its own date and stays outside the window.
    assert len(_spans(phoenix, old_id, old_sent)) == old_sent
    url = f"{phoenix}/v1/projects/tracer/spans?limit=1000&trace_id={old_id}&start_time={since}"
    assert _get(url)["data"] == []
