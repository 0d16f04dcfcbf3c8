"""The count check counts the source, not what the importer kept.

Each test plants one of the losses issue 18 found (the importer is made to behave as it used to)
and asks the check to name every block that went missing with the line it was written on. The
check reads every record of the file and of the session's agent files, progress records
included, so none of these losses can pass silently again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracer.importers.claude_code import chain, dag, subagents
from tracer.importers.claude_code import importer as claude_code
from tracer.importers.claude_code.counts import Block, Tally, check_counts
from tracer.importers.claude_code.emit import describe_counts
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader

DATA = Path(__file__).parent / "data" / "claude-code"


def _counts(source: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "t.jsonl"
    import_claude_code(source, out)
    (note,) = [e for e in TraceReader(out) if e.kind == "import_note" and e.topic == "counts"]
    return note.data


def _missing(counts: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(m["kind"], m["id"], m["where"]) for m in counts["missing"]}


def test_a_second_conversation_lost_is_named_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = DATA / "v2.1-clear-context-three-conversations.jsonl"
    assert _counts(source, tmp_path)["not_in_trace"] == 0
    monkeypatch.setattr(dag, "starts_afresh", lambda rec: False)  # as before: a "rewind"
    counts = _counts(source, tmp_path)
    assert _missing(counts) == {
        ("tool_use", "toolu_k1", f"{source}:2"),
        ("tool_result", "toolu_k1", f"{source}:3"),
        ("tool_use", "toolu_k2", f"{source}:4"),
        ("tool_result", "toolu_k2", f"{source}:5"),
        ("tool_use", "toolu_k3", f"{source}:8"),
        ("tool_result", "toolu_k3", f"{source}:9"),
        ("tool_use", "toolu_k4", f"{source}:10"),
        ("tool_result", "toolu_k4", f"{source}:11"),
    }
    assert counts["source_tool_use"] == 5 and counts["trace_tool_calls"] == 1
    assert f"tool_use toolu_k1 (assistant, {source}:2)" in describe_counts(counts)


def test_work_behind_a_1_0_local_command_lost_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = DATA / "v1.0-local-commands.jsonl"
    assert _counts(source, tmp_path)["not_in_trace"] == 0
    # Both the walk (dag) and the parent links it follows (chain) tell local commands apart.
    for module in (dag, chain):
        monkeypatch.setattr(module, "is_local_command", lambda rec: False)
    assert _missing(_counts(source, tmp_path)) == {
        ("tool_use", "toolu_m3", f"{source}:9"),
        ("tool_result", "toolu_m3", f"{source}:10"),
        ("tool_use", "toolu_m4", f"{source}:11"),
        ("tool_result", "toolu_m4", f"{source}:12"),
    }


def test_a_run_only_in_progress_records_lost_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = DATA / "v2.1-subagent-only-in-progress-records.jsonl"
    assert _counts(source, tmp_path)["not_in_trace"] == 0
    monkeypatch.setattr(claude_code, "progress_records", lambda items: [])  # as before
    counts = _counts(source, tmp_path)
    assert _missing(counts) == {
        ("tool_use", "toolu_ga", f"{source}:4"),
        ("tool_result", "toolu_ga", f"{source}:5"),
        ("tool_use", "toolu_gb", f"{source}:6"),
        ("tool_result", "toolu_gb", f"{source}:7"),
    }
    assert {m["record"] for m in counts["missing"]} == {"agent_progress"}


def test_an_agent_file_not_followed_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
    agent = DATA / "layout-2.0" / "agent-b1d2e3f4.jsonl"
    assert _counts(source, tmp_path)["source_files"] == 2
    monkeypatch.setattr(subagents, "find_agent_file", lambda session, agent_id: None)
    counts = _counts(source, tmp_path)
    assert _missing(counts) == {
        ("tool_use", "toolu_la", f"{agent}:2"),
        ("tool_result", "toolu_la", f"{agent}:3"),
    }
    assert {m["record"] for m in counts["missing"]} == {"sidechain"}


def test_a_run_nested_in_the_wrong_call_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = DATA / "v2.1-subagent-only-in-progress-records.jsonl"
    real = claude_code._find_children

    def misplaced(t: Any, reads: Any) -> int:
        n = real(t, reads)
        if "toolu_g1" in t.children:  # the run moved into another call of the same loop
            t.children = {"toolu_elsewhere": t.children["toolu_g1"]}
        return n

    monkeypatch.setattr(claude_code, "_find_children", misplaced)
    counts = _counts(source, tmp_path)
    # Its calls are gone from toolu_g1 (it is now no call's run), so they ran nowhere.
    assert {m["id"] for m in counts["missing"]} == {"toolu_ga", "toolu_gb"}
    # Planted in the tally directly: the same run inside the wrong call is named as such.
    blocks = [
        Block("tool_use", "toolu_ga", f"{source}:4", "agent_progress", "toolu_g1"),
        Block("tool_use", "toolu_g1", f"{source}:2", "assistant", "main"),
    ]
    tally = Tally(asked={"toolu_ga": "toolu_other", "toolu_g1": None})
    checked = check_counts(blocks, tally)
    assert checked["misplaced"] == [
        {
            "kind": "tool_use",
            "id": "toolu_ga",
            "where": f"{source}:4",
            "record": "agent_progress",
            "expected_in": "toolu_g1",
            "found_in": "toolu_other",
        }
    ]
    assert "in the wrong loop: tool_use toolu_ga" in describe_counts(checked)


def test_an_abandoned_branch_is_named_too(tmp_path: Path) -> None:
    # The old check said "on records left out"; this one says which and where.
    records = [
        json.loads(x)
        for x in (DATA / "v2.1-system-records-on-chain.jsonl").read_text("utf-8").splitlines()
    ]
    first = records[0]
    call = {**records[2], "uuid": "as-gone", "parentUuid": first["uuid"]}
    call["message"] = {
        **call["message"],
        "id": "msg_gone",
        "content": [{"type": "tool_use", "id": "toolu_gone", "name": "Bash", "input": {}}],
    }
    result = {**records[3], "uuid": "us-gone", "parentUuid": "as-gone"}
    result["message"] = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_gone", "content": "x"}],
    }
    source = tmp_path / "s.jsonl"
    source.write_text(
        "".join(json.dumps(r) + "\n" for r in [first, call, result, *records[1:]]), "utf-8"
    )
    counts = _counts(source, tmp_path)
    assert _missing(counts) == {
        ("tool_use", "toolu_gone", f"{source}:2"),
        ("tool_result", "toolu_gone", f"{source}:3"),
    }


@pytest.mark.parametrize(
    "what, n, said",
    [
        ("subagent links (inline)", 1, "subagent link (inline)"),
        ("subagent links (inline)", 2, "subagent links (inline)"),
        ("tool results", 1, "tool result"),
    ],
)
def test_a_count_of_one_is_singular_before_its_bracket(what: str, n: int, said: str) -> None:
    from tracer.importers.output import _number

    assert _number(what, n) == said
