"""No conversation lost: the patterns of issue 18 that used to drop real history, each from a
small transcript of our own in ``tests/data/claude-code/`` (written by its ``make.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracer.doctor import run_doctor
from tracer.importers.claude_code import import_claude_code
from tracer.importers.output import ImportReport
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"


def _import(name: str, tmp_path: Path) -> tuple[list[Any], ImportReport, Path]:
    out = tmp_path / "t.jsonl"
    report = import_claude_code(DATA / name, out)
    assert validate_trace(out)[1] == []
    return list(TraceReader(out)), report, out


def _of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def _errors(out: Path) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in run_doctor(TraceReader(out)) if f.severity == "error"]


def test_a_cleared_context_starts_a_second_conversation_not_a_rewind(tmp_path: Path) -> None:
    events, report, out = _import("v2.1-clear-context-three-conversations.jsonl", tmp_path)
    # Plan mode's clear context and /clear: three conversations, every call and result kept.
    assert [e.tool_use_id for e in _of(events, "tool_run")] == [
        "toolu_k1",
        "toolu_k2",
        "toolu_k3",
        "toolu_k4",
        "toolu_k6",
    ]
    assert len(_of(events, "response")) == 7
    assert report.skipped == {}
    # The plan loop ends where the context was cleared; the other two end with an answer.
    ends = _of(events, "terminal")
    assert [e.reason for e in ends] == ["aborted_tools", "completed", "completed"]
    assert "the context was cleared" in ends[0].error
    notes = [e for e in _of(events, "import_note") if e.topic == "context_cleared"]
    assert len(notes) == 2
    # Each new conversation's first request holds nothing of the one before.
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert [len(b) for b in bodies] == [1, 3, 1, 3, 5, 1, 3]
    assert bodies[2][0]["content"][1]["text"].startswith("Implement the following plan")
    assert bodies[5][0]["content"][-1]["text"] == "How many Python files are there?"
    assert any(n.startswith("3 conversations in this file") for n in report.notes)
    assert _errors(out) == []


def test_1_0_local_commands_hanging_off_one_caveat_hide_nothing(tmp_path: Path) -> None:
    events, report, out = _import("v1.0-local-commands.jsonl", tmp_path)
    # The second /model points back at the caveat written before the first one; the work in
    # between (Read, Bash) used to be left out as a rewind.
    assert [e.tool_use_id for e in _of(events, "tool_run")] == [
        "toolu_m1",
        "toolu_m3",
        "toolu_m4",
        "toolu_m6",
    ]
    assert len(_of(events, "response")) == 7
    # /status (with its output) and /doctor after the last answer: local commands, not a rewind.
    assert report.skipped == {
        "local command records (/status, /doctor, ...) after the last request: none sent": 3
    }
    assert _errors(out) == []


def test_hook_text_for_the_model_on_side_branches_is_kept(tmp_path: Path) -> None:
    events, report, out = _import("v2.1-hook-context-on-side-branches.jsonl", tmp_path)
    assert report.skipped == {}
    kept = [e for e in _of(events, "message") if e.type == "attachment"]
    assert [m.attachment["hookEvent"] for m in kept] == ["PreToolUse", "PostToolUse"]
    second = list(rebuild_requests(events))[1].body["messages"]
    texts = [
        b.get("text", "") for m in second if isinstance(m["content"], list) for b in m["content"]
    ]
    assert (
        "<system-reminder>\nThe test database is reset before each run.\n</system-reminder>"
        in texts
    )
    assert "<system-reminder>\nRemember to update CHANGELOG.md.\n</system-reminder>" in texts
    assert _errors(out) == []
