"""Subagents as loops of their own: imported inside their Task call, listed indented by ``show``,
checked by the doctor one loop at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.doctor import run_doctor
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"
INLINE = DATA / "v1.0-inline-sidechain.jsonl"
LAYOUT = DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl"


def _import(source: Path, tmp_path: Path) -> tuple[list[Any], Path]:
    out = tmp_path / "t.jsonl"
    import_claude_code(source, out)
    assert validate_trace(out)[1] == []
    return list(TraceReader(out)), out


@pytest.mark.parametrize("source", [INLINE, LAYOUT], ids=["inline-1.0", "agent-file-2.0"])
def test_a_subagent_runs_as_a_nested_loop_inside_its_task_call(
    source: Path, tmp_path: Path
) -> None:
    events, out = _import(source, tmp_path)
    kinds = [e.kind for e in events]
    start, end = kinds.index("subagent_start"), kinds.index("subagent_end")
    inner = events[start + 1 : end]
    opened = events[start]
    assert opened.prompt == "Find every TODO." and opened.depth == 1
    # A whole loop of its own: set-up, two turns (a Grep, then the answer), its own ending.
    assert [e.kind for e in inner if e.kind in ("session_start", "terminal")] == [
        "session_start",
        "terminal",
    ]
    assert [e.turn for e in inner if e.kind == "turn_start"] == [1, 2]
    assert [e.tool for e in inner if e.kind == "tool_run"] == ["Grep"]
    assert events[end].turn_count == 2
    # The Task call's result comes back after the run, and the main loop goes on.
    after = [e for e in events[end + 1 :] if e.kind == "tool_run"]
    assert after[0].tool == "Task" and after[0].tool_use_id == opened.tool_use_id
    # Request numbers stay unique, and every request still rebuilds read flat.
    assert [e.request_index for e in events if e.kind == "request"] == [1, 2, 3, 4]
    assert len(list(rebuild_requests(events))) == 4
    assert run_doctor(TraceReader(out)) == []


def test_show_lists_the_nested_loop_indented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _import(INLINE, tmp_path)
    assert main(["show", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    opened = next(i for i, line in enumerate(lines) if "┌ subagent" in line)
    closed = next(i for i, line in enumerate(lines) if "└ subagent" in line)
    assert "for toolu_i1: Find every TODO." in lines[opened]
    assert "2 turn(s), back to toolu_i1" in lines[closed]
    assert all(
        " turn 1     " in x or " turn 0     " in x or " turn 2     " in x
        for x in lines[opened + 1 : closed]
    )
    assert " turn 1   tool_run         Task" in lines[closed + 1]  # back at the parent's depth


def test_the_doctor_checks_the_nested_loop_on_its_own(tmp_path: Path) -> None:
    broken = tmp_path / "s.jsonl"
    text = INLINE.read_text(encoding="utf-8")
    # In the subagent, the Grep result answers an id nobody asked for.
    broken.write_text(
        text.replace('"tool_use_id": "toolu_ia"', '"tool_use_id": "toolu_zz"'), encoding="utf-8"
    )
    events, out = _import(broken, tmp_path)
    findings = run_doctor(TraceReader(out))
    assert [f.rule for f in findings] == ["tool-use-id-mismatch", "result-not-returned"]
    assert all(f.message.startswith("in the subagent run by toolu_i1: ") for f in findings)
    finding = findings[0]
    steps = [
        e
        for e in events
        if e.kind not in ("message", "debug_hook", "import_note", "subagent_start", "subagent_end")
    ]
    assert steps[finding.step - 1].kind in ("mapping", "request", "tool_run", "wrapping")
    kinds = [e.kind for e in events]
    start, end = kinds.index("subagent_start"), kinds.index("subagent_end")
    assert start < events.index(steps[finding.step - 1]) < end


def test_a_meta_file_names_the_run_when_the_task_result_does_not(tmp_path: Path) -> None:
    # 2.1's layout: the agent file in <session>/subagents/, beside it the meta file naming the
    # tool_use that started it; the Task result here says nothing of its agent.
    session = tmp_path / LAYOUT.name
    text = LAYOUT.read_text(encoding="utf-8")
    session.write_text(text.replace('"agentId": "b1d2e3f4", ', ""), encoding="utf-8")
    assert '"b1d2e3f4"' not in session.read_text(encoding="utf-8")
    own = tmp_path / LAYOUT.stem / "subagents"
    own.mkdir(parents=True)
    agent = LAYOUT.parent / "agent-b1d2e3f4.jsonl"
    (own / agent.name).write_text(agent.read_text(encoding="utf-8"), encoding="utf-8")
    (own / "agent-b1d2e3f4.meta.json").write_text('{"toolUseId": "toolu_l1"}', encoding="utf-8")
    events, _ = _import(session, tmp_path)
    opened = next(e for e in events if e.kind == "subagent_start")
    assert opened.tool_use_id == "toolu_l1" and opened.prompt == "Find every TODO."
    assert [e.tool for e in events if e.kind == "tool_run"] == ["Grep", "Task"]
