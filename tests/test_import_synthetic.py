"""Transcripts written by hand, for what the real ones happen not to hold.

A rewound branch and records of kinds tracer does not read are skipped and counted by name; a
compaction in the middle of a session follows its logical parent; input that is no transcript is
one line and exit 2; ``--list`` shows the sessions newest first, and an import without a session
says what to give it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from import_fixtures_helpers import _import, _of

from tracer.cli.main import main
from tracer.errors import UserError
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace


def _rec(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=extra.pop("mid"), model="claude-x", usage={"output_tokens": 1})
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "isSidechain": False,
        "version": "9.9.9",
        "message": message,
        **extra,
    }


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_rewound_branch_and_unknown_records_are_skipped(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "s.jsonl",
        [
            {"type": "atis-latch", "brandNew": True},
            {"type": "frame-link", "sessionId": "s"},
            {"type": "workflow-start", "sessionId": "s"},  # a kind no version we know writes
            _rec("user", "u1", None, "first try", somethingNew={"x": 1}),
            _rec("assistant", "a1", "u1", [{"type": "text", "text": "old answer"}], mid="m1"),
            _rec("user", "u2", None, "second try"),  # the user rewound and asked again
            _rec(
                "assistant",
                "a2",
                "u2",
                [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "x"}}],
                mid="m2",
            ),
            _rec(
                "user",
                "r1",
                "a2",
                [{"type": "tool_result", "tool_use_id": "t1", "content": "hi"}],
                toolUseResult={"file": {"content": "hi"}},
                sourceToolAssistantUUID="a2",
            ),
            _rec("assistant", "a3", "r1", [{"type": "text", "text": "done"}], mid="m3"),
        ],
    )
    from tracer.importers.claude_code.importer import import_claude_code

    report = import_claude_code(source, tmp_path / "t.jsonl")
    events = list(TraceReader(tmp_path / "t.jsonl"))
    assert report.skipped == {
        "atis-latch records": 1,
        "frame-link records": 1,
        "records of an unknown kind 'workflow-start' (not read)": 1,
        "records off the active branch (rewound or edited)": 2,
    }
    assert {m.uuid for m in _of(events, "message")} == {"u2", "a2", "r1", "a3"}
    assert [e.message_count for e in _of(events, "request")] == [1, 3]
    assert [e.line for e in _of(events, "debug_hook")] == [
        "[DEBUG] Loop turn: 1 messages: 1",
        "[DEBUG] needsFollowUp: true tool_use blocks: 1",
        "[DEBUG] Tool result: Read is_error: undefined content length: 2",
        "[DEBUG] Loop turn: 2 messages: 3",
        "[DEBUG] needsFollowUp: false tool_use blocks: 0",
    ]
    assert events[-1].reason == "completed"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\nnor this\n", encoding="utf-8")
    with pytest.raises(UserError, match="no JSON object"):
        from tracer.importers.claude_code.importer import import_claude_code

        import_claude_code(bad, tmp_path / "t.jsonl")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tracer",
            "import",
            "claude-code",
            str(bad),
            "-o",
            str(tmp_path / "t.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and f"{bad}:1:" in proc.stderr


def test_list_shows_sessions_newest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "projects" / "-home-me-app"
    (project / "old" / "subagents").mkdir(parents=True)
    old = _write(project / "old.jsonl", [_rec("user", "u", None, "the old question")])
    new = _write(project / "new.jsonl", [_rec("user", "u", None, "the new question")])
    _write(project / "old" / "subagents" / "agent-a1.jsonl", [_rec("user", "u", None, "sub")])
    os.utime(old, (1_000_000, 1_000_000))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert main(["import", "claude-code", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "new.jsonl" in lines[0] and "the new question" in lines[0]
    assert "old.jsonl" in lines[1] and new.exists()


def test_compaction_mid_session_follows_the_logical_parent(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "s.jsonl",
        [
            _rec("user", "u1", None, "first question"),
            _rec("assistant", "a1", "u1", [{"type": "text", "text": "first answer"}], mid="m1"),
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": "c1",
                "parentUuid": None,
                "logicalParentUuid": "a1",
                "compactMetadata": {"trigger": "manual", "preTokens": 99},
            },
            _rec(
                "user",
                "s1",
                "c1",
                "This session is being continued from a previous conversation",
                isCompactSummary=True,
            ),
            _rec("user", "u2", "s1", "second question"),
            _rec("assistant", "a2", "u2", [{"type": "text", "text": "second answer"}], mid="m2"),
        ],
    )
    out = tmp_path / "t.jsonl"
    events = _import(source, out)
    assert validate_trace(out)[1] == []
    (note,) = [e.to_dict() for e in events if e.kind == "import_note" and e.topic != "counts"]
    assert note["topic"] == "compaction"
    assert note["data"] == {
        "trigger": "manual",
        "pre_tokens": 99,
        "logical_parent_uuid": "a1",
        "before_count": 2,
        "after_count": 1,
    }
    assert [e.message_count for e in _of(events, "turn_start")] == [1, 2]
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert bodies[0] == [{"role": "user", "content": "first question"}]
    assert [m["role"] for m in bodies[1]] == ["user"]  # summary and prompt, merged
    assert [e.reason for e in _of(events, "terminal")] == ["completed", "completed"]


def test_import_without_a_session_says_what_to_give(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "claude-code"]) == 2
    assert "--list" in capsys.readouterr().err
