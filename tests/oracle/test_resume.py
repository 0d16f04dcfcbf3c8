"""The faults of the chapter's table played to Claude Code 2.1.88 by resuming a damaged
transcript (``claude -p "go on" --resume ID``): a scenario cannot script a loop bug into the
real one, but 2.1.88 rebuilds its history from the transcript, so a transcript of a real run,
damaged as the fault damages the history, shows what 2.1.88 sends for it. What it sends is
checked here, and listed in ``chapters/ch12/differences.yaml`` against what tracer's fault
scenarios show (the live loop). Each resume is a slow test; the damage is checked offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_helpers import real_claude
from oracle_helpers import listed

from tracer.agent.scripted import ScriptedResponse
from tracer.chapter.scenario import load_scenario
from tracer.claude_code.resume import damaged, plant, project_folder
from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

pytestmark = pytest.mark.xdist_group("oracle-resume")

FAULTS = ROOT / "chapters" / "ch12" / "faults"
RESUMES = {
    "faults/01-result-not-returned": ("drop_result", "toolu_01fault_dropped_diff"),
    "faults/02-tool-use-id-mismatch": ("rewrite_id", "toolu_01fault_diff"),
    "faults/03-malformed-result": ("remove_id", "toolu_01fault_read_calc"),
}


def _resumed(name: str, tmp: Path) -> list[dict[str, Any]]:
    """The messages of the first request 2.1.88 sends after resuming the damaged session."""
    from tracer.claude_code.record import record_resumed_claude_code, record_scenario_claude_code
    from tracer.claude_code.session import transcript_path

    claude = real_claude()
    fault, tool_use_id = RESUMES[name]
    scenario = load_scenario(FAULTS / f"{name.removeprefix('faults/')}.yaml")
    clean = tmp / "clean.trace.jsonl"
    record_scenario_claude_code(scenario, clean, claude=claude)
    records = [json.loads(line) for line in transcript_path(clean).read_text().splitlines()]
    scenario.responses = [ScriptedResponse([{"type": "text", "text": "Resumed."}], "end_turn")]
    resumed = tmp / "resumed.trace.jsonl"
    bad = damaged(records, fault, tool_use_id, "toolu_01fault_somebody_else")
    record_resumed_claude_code(scenario, bad, resumed, claude=claude)
    (first,) = rebuild_requests(list(TraceReader(resumed)))
    return first.body["messages"]


def _ids(messages: list[dict[str, Any]], kind: str) -> list[str]:
    return [
        str(b.get("id") if kind == "tool_use" else b.get("tool_use_id"))
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == kind
    ]


def _check(name: str, messages: list[dict[str, Any]]) -> None:
    fault, tool_use_id = RESUMES[name]
    # The unanswered call is gone from the assistant message, and no result answers it.
    assert tool_use_id not in _ids(messages, "tool_use")
    assert tool_use_id not in _ids(messages, "tool_result")
    assert "toolu_01fault_somebody_else" not in _ids(messages, "tool_result")
    if fault == "drop_result":
        assert "toolu_01fault_kept_status" in _ids(messages, "tool_result")  # its sibling's stays
    else:
        # The user message left empty by the repair is sent as "(no content)".
        assert {"role": "user", "content": "(no content)"} in messages
    assert f"{name} resume" in listed()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RESUMES))
def test_a_damaged_result_resumed(name: str, tmp_path: Path) -> None:
    _check(name, _resumed(name, tmp_path))


def test_the_damage_and_where_it_is_planted(tmp_path: Path) -> None:
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "cwd": "/old",
            "message": {"content": "go"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {"content": [{"type": "tool_use", "id": "t1"}]},
        },
        {
            "type": "user",
            "uuid": "r1",
            "parentUuid": "a1",
            "cwd": "/old",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": ""}]},
        },
        {"type": "assistant", "uuid": "a2", "parentUuid": "r1", "message": {"content": []}},
    ]
    dropped = damaged(records, "drop_result", "t1")
    assert [r["uuid"] for r in dropped] == ["u1", "a1", "a2"]
    assert dropped[2]["parentUuid"] == "a1"  # what followed the result hangs from its parent
    changed = damaged(records, "rewrite_id", "t1", "t9")
    assert changed[2]["message"]["content"][0]["tool_use_id"] == "t9"
    assert "tool_use_id" not in damaged(records, "remove_id", "t1")[2]["message"]["content"][0]
    assert records[2]["message"]["content"][0]["tool_use_id"] == "t1"  # the input is untouched
    with pytest.raises(ValueError, match="no tool_result for t2"):
        damaged(records, "drop_result", "t2")
    workspace = tmp_path / "work space"
    assert project_folder(Path("/tmp/tracer-a_1/work space")) == "-tmp-tracer-a-1-work-space"
    assert plant(tmp_path / "cfg", workspace, records) == "s1"
    planted = tmp_path / "cfg" / "projects" / project_folder(workspace) / "s1.jsonl"
    lines = [json.loads(line) for line in planted.read_text().splitlines()]
    assert [r.get("cwd") for r in lines] == [str(workspace), None, str(workspace), None]
