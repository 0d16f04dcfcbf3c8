"""``tracer record --claude-code``: the real Claude Code 2.1.88 played a bundled scenario
offline, and what it sent read back as a trace (these tests need ``claude``: see
:mod:`claude_helpers`). The headline of issue 33: scenario 12's empty command comes back as
``(Bash completed with no output)``, written by Claude Code itself, and the replay steps
through the trace."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from claude_helpers import real_claude
from run_helpers import Recording, run_tracer

from tracer.claude_code.session import transcript_path

pytestmark = pytest.mark.xdist_group("claude-code-12")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    claude = real_claude()
    trace = tmp_path_factory.mktemp("cc") / "12.trace.jsonl"
    done = run_tracer(
        "record", "--claude-code", "--scenario", "12-empty-output", "-o", str(trace),
        env={"TRACER_CLAUDE": str(claude)},
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return trace, done


def test_the_empty_command_comes_back_as_claude_code_says_it(recorded: tuple[Path, Any]) -> None:
    trace, done = recorded
    assert done.stderr.strip().splitlines()[-1] == f"wrote {trace} (ended completed at turn 2)"
    run = Recording(trace)
    (result,) = run.results()
    assert result["content"] == "(Bash completed with no output)"
    assert result["is_error"] is False
    (tool,) = run.of("tool_run")
    assert tool.tool == "Bash" and tool.input["command"] == "touch app.log"
    # Each request is the whole history: the second carries the first's call and its result.
    first, second = run.requests()
    assert len(first["messages"]) == 1 and len(second["messages"]) == 3
    assert second["messages"][2]["content"][0]["tool_use_id"] == tool.tool_use_id
    assert run.reader.header["source"]["version"] == "2.1.88"


def test_claude_codes_transcript_is_kept_beside_the_trace(recorded: tuple[Path, Any]) -> None:
    trace, _ = recorded
    records = [json.loads(line) for line in transcript_path(trace).read_text().splitlines()]
    results = [
        block
        for r in records
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
        if block.get("type") == "tool_result"
    ]
    assert [b["content"] for b in results] == ["(Bash completed with no output)"]


def test_no_key_is_written(recorded: tuple[Path, Any]) -> None:
    trace, _ = recorded
    for path in (trace, transcript_path(trace)):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"tracer-[0-9a-f]{32}", text)  # the session's key
        assert "x-api-key" not in text.lower()


def test_the_replay_steps_through_it(recorded: tuple[Path, Any]) -> None:
    from tracer.replay import factory

    trace, _ = recorded
    os.environ.setdefault("TRACER_STATE_DIR", str(trace.parent / "state"))
    app = factory.make_app(trace)
    seen: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.pause()
            for _ in range(len(app.replay.state.index) - 1):
                await pilot.press("right")
                seen.append(app.replay.state.index.event(app.replay.step).kind)
            await pilot.press("1")  # the first mapping step
            await pilot.pause()

    asyncio.run(main())
    assert seen[-1] == "terminal"
    assert "mapping" in seen and "tool_run" in seen
    assert app.replay.state.index.event(app.replay.step).kind == "mapping"


@pytest.mark.parametrize("walls", ["bwrap", "none"])
def test_claude_code_never_runs_as_root(walls: str, tmp_path: Path, monkeypatch: Any) -> None:
    """Claude Code and the commands it runs: nobody in bwrap; without bwrap, as root, the
    session's own uid. Never uid 0."""
    from tracer.agent.sandbox_choice import find_sandbox
    from tracer.agent.unprivileged import FIRST_ID
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_scenario_claude_code

    claude = real_claude()
    monkeypatch.setenv("TRACER_SANDBOX", walls)
    if walls == "bwrap" and find_sandbox() is None:
        pytest.skip("bwrap cannot start here")
    scenario = tmp_path / "whoami.yaml"
    scenario.write_text(
        "name: whoami\nprompt: Who am I?\npermissions: {allow: ['Bash(id:*)']}\nresponses:\n"
        "  - tool_use: [{name: Bash, input: {command: id -u, description: uid}}]\n"
        "  - text: Done.\n",
        encoding="utf-8",
    )
    trace = tmp_path / "whoami.trace.jsonl"
    record_scenario_claude_code(load_scenario(scenario), trace, claude=claude)
    recording = Recording(trace)
    # Once, on a busy CI run, the trace held no result here: say what the session did instead.
    kept = transcript_path(trace)
    assert len(recording.results()) == 1, (
        [(e.kind, getattr(e, "stage", None), getattr(e, "reason", None)) for e in recording.events],
        kept.read_text(encoding="utf-8")[-3000:] if kept.exists() else "no transcript kept",
    )
    (result,) = recording.results()
    uid = int(result["content"])
    assert uid != 0
    if walls == "bwrap":
        assert uid == 65534
    elif os.geteuid() == 0:
        assert uid >= FIRST_ID  # the session's own uid (tracer.agent.unprivileged)


def test_the_transcript_imports_to_the_same_results_as_the_wire(
    recorded: tuple[Path, Any], tmp_path: Path
) -> None:
    """Claude Code's own transcript, imported, holds the tool_result the wire carried."""
    from tracer.importers.claude_code.importer import import_claude_code

    trace, _ = recorded
    imported = tmp_path / "from-transcript.trace.jsonl"
    import_claude_code(transcript_path(trace), imported)
    wire, transcript = Recording(trace), Recording(imported)

    def results(run: Recording) -> list[tuple[str, Any, bool]]:
        return [(b["tool_use_id"], b["content"], bool(b.get("is_error"))) for b in run.results()]

    assert results(transcript) == results(wire)
    assert transcript.terminal.reason == wire.terminal.reason == "completed"


@pytest.mark.slow  # the stripping itself is tested offline (test_prose.py)
def test_strip_prose_keeps_no_text_of_claude_codes_own(tmp_path: Path) -> None:
    from tracer.claude_code.prose import is_marked

    claude = real_claude()
    trace = tmp_path / "12.trace.jsonl"
    done = run_tracer(
        "record", "--claude-code", "--strip-prose", "--scenario", "12-empty-output",
        "-o", str(trace), env={"TRACER_CLAUDE": str(claude)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for path in (trace, transcript_path(trace)):
        text = path.read_text(encoding="utf-8")
        for inner in re.findall(r"<system-reminder>(.*?)</system-reminder>", text, re.S):
            assert is_marked(inner), inner[:80]
    run = Recording(trace)
    (first, _second) = run.requests()
    assert all(is_marked(block["text"]) for block in first["system"])
    assert all(is_marked(tool["description"]) for tool in first["tools"])
    assert run.results()[0]["content"] == "(Bash completed with no output)"


@pytest.mark.slow  # the trace's side is tested offline (test_wire_server.py)
def test_claude_code_sends_a_cut_stream_again_and_finishes(tmp_path: Path) -> None:
    """A 529, then a stream cut midway: 2.1.88 retries, then sends the same request without
    streaming, and the session finishes; the trace shows one request with its three attempts."""
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_scenario_claude_code

    claude = real_claude()
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(
        "name: cut\nprompt: Say hello.\nresponses:\n"
        "  - text: This answer is long enough to be cut in the middle of its stream.\n"
        "    faults: [{status: 529}, {cut_after: 5}]\n",
        encoding="utf-8",
    )
    trace = tmp_path / "cut.trace.jsonl"
    record_scenario_claude_code(load_scenario(scenario), trace, claude=claude)
    run = Recording(trace)
    attempts = [(e.status, e.error) for e in run.of("http_attempt")]
    assert [status for status, _ in attempts] == [529, 200, 200]
    assert attempts[1][1].startswith("RemoteProtocolError") and attempts[2][1] is None
    assert len(run.of("request")) == 1 and run.terminal.reason == "completed"
