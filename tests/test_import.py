"""Importing real Claude Code transcripts and API logs: each fixture round-trips
(import → validate → show → doctor) and the rebuilt journey says what the source says.

The fixtures live outside the repository (``../shared/fixtures``); tests that need them skip with
a reason when that folder is absent. Synthetic transcripts are written to ``tmp_path``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.errors import UserError
from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

FIXTURES = Path(ROOT).parent / "shared" / "fixtures"
TRANSCRIPTS = FIXTURES / "claude-code-transcripts"
API_LOG = FIXTURES / "api-logs" / "claude-trace-2025-05-29-weather-app-first19.jsonl"
needs_fixtures = pytest.mark.skipif(
    not TRANSCRIPTS.is_dir(), reason=f"fixtures not found at {FIXTURES}"
)
FIXTURE_NAMES = sorted(p.name for p in TRANSCRIPTS.glob("*.jsonl")) if TRANSCRIPTS.is_dir() else []


def _import(source: Path, out: Path, fmt: str = "claude-code") -> list[Any]:
    if fmt == "claude-code":
        from tracer.importers.claude_code.importer import import_claude_code

        report = import_claude_code(source, out)
    else:
        from tracer.importers.api_log.importer import import_api_log

        report = import_api_log(source, out)
    assert report.unreadable == []  # the readers' checks, asked as the lines were written
    return list(TraceReader(out))


def _of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# -- every fixture round-trips -------------------------------------------------------------------


@needs_fixtures
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_round_trips(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.jsonl"
    events = _import(TRANSCRIPTS / name, out)
    _, problems, _ = validate_trace(out)
    assert problems == []
    assert events[0].kind == "session_start" and events[-1].kind == "terminal"
    header = TraceReader(out).header
    assert header["source"]["kind"] == "import" and header["source"]["format"] == "claude-code"
    assert header["source"]["version"] == _records(TRANSCRIPTS / name)[-1].get("version")
    assert header["paths"] is None

    # Every request rebuilds to the body its sha256 describes, roles alternating as the API wants.
    rebuilt = list(rebuild_requests(events))
    assert len(rebuilt) == len(_of(events, "request")) > 0
    for request in rebuilt:
        assert hashlib.sha256(request.encode()).hexdigest() == request.event.sha256
        roles = [m["role"] for m in request.body["messages"]]
        assert all(a != b for a, b in itertools.pairwise(roles)), roles
    # turn_start counts the internal list, which each request was normalized from.
    for start, request in zip(_of(events, "turn_start"), _of(events, "request"), strict=True):
        assert start.message_count == request.internal_count

    assert main(["show", str(out)]) == 0
    assert main(["hooks", str(out)]) == 0
    assert "[DEBUG] Loop turn: 1 messages:" in capsys.readouterr().out
    doctor = pytest.importorskip("tracer.doctor")
    findings = doctor.run_doctor(TraceReader(out))
    assert [f for f in findings if f.severity == "error"] == []


@needs_fixtures
def test_one_response_over_five_records_is_one_call(tmp_path: Path) -> None:
    events = _import(
        TRANSCRIPTS / "spotter-v2.1.38-short-parallel-rejected.jsonl", tmp_path / "t.jsonl"
    )
    (response,) = _of(events, "response")
    assert len(response.assistant_uuids) == 5  # text, thinking, text, tool_use, tool_use
    assert [e.decision for e in _of(events, "permission")] == ["reject", "reject"]
    assert [e.error_kind for e in _of(events, "tool_run")] == ["permission", "permission"]
    # Each wrapped result points at the assistant record holding its own tool_use.
    holders = {e.source_tool_assistant_uuid for e in _of(events, "wrapping")}
    assert len(holders) == 2 and holders <= set(response.assistant_uuids)
    assert events[-1].reason == "aborted_tools"
    lines = [e.line for e in _of(events, "debug_hook")]
    assert lines[:2] == [
        "[DEBUG] Loop turn: 1 messages: 1",
        "[DEBUG] needsFollowUp: true tool_use blocks: 2",
    ]


@needs_fixtures
def test_tokens_are_counted_once_per_response(tmp_path: Path) -> None:
    source = TRANSCRIPTS / "spotter-v2.1.39-subagent-file-agent-a2898e3.jsonl"
    events = _import(source, tmp_path / "t.jsonl")
    last: dict[str, int] = {}
    naive = 0
    for rec in _records(source):
        if rec.get("type") == "assistant":
            tokens = rec["message"]["usage"]["output_tokens"]
            last[rec["message"]["id"]] = tokens
            naive += tokens
    counted = [e.usage["output_tokens"] for e in _of(events, "response")]
    assert len(counted) == len(last) == 12
    assert sum(counted) == sum(last.values()) < naive


@needs_fixtures
def test_tool_results_keep_their_raw_output_once(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    events = _import(TRANSCRIPTS / "spotter-v2.1.38-tool-heavy.jsonl", out)
    reader = TraceReader(out)
    runs = {e.tool_use_id: e for e in _of(events, "tool_run")}
    assert {e.tool for e in runs.values()} == {"Bash", "WebSearch", "Glob", "Read", "WebFetch"}
    for wrap in _of(events, "wrapping"):
        message = next(m for m in _of(events, "message") if m.uuid == wrap.message_uuid)
        # Written once, in the tool_run step; the reader puts it back into the message.
        assert "tool_use_result" not in reader.dict_at(message.seq - 1)
        assert message.tool_use_result == runs[wrap.tool_use_id].output
    bash = next(r for r in runs.values() if r.tool == "Bash")
    assert set(bash.output) >= {"stdout", "stderr", "interrupted"}


@needs_fixtures
def test_compaction_starts_the_list_afresh(tmp_path: Path) -> None:
    events = _import(
        TRANSCRIPTS / "spotter-v2.1.39-post-compaction-tail.jsonl", tmp_path / "t.jsonl"
    )
    notes = [e for e in events if e.kind == "import_note" and e.topic == "compaction"]
    assert len(notes) == 1 and notes[0].data["pre_tokens"] == 167094
    assert _of(events, "turn_start")[0].message_count == 1
    assert _of(events, "session_start")[0].prompt.startswith("This session is being continued")
    depth, main, nested = 0, 0, 0
    for e in events:
        depth += (e.kind == "subagent_start") - (e.kind == "subagent_end")
        if e.kind == "response":
            main, nested = (main + 1, nested) if depth == 0 else (main, nested + 1)
    # The session's own 50 calls, and the Task call's subagent (agent a881341, whose file is not
    # in the excerpt) rebuilt from its agent_progress records: 2 calls.
    assert (main, nested) == (50, 2)


@needs_fixtures
def test_inline_sidechains_are_linked_to_their_task_calls(tmp_path: Path) -> None:
    source = TRANSCRIPTS / "ccviewer-v1.0.98-inline-sidechains-summary.jsonl"
    events = _import(source, tmp_path / "t.jsonl")
    tasks = {e.tool_use_id for e in _of(events, "tool_run") if e.tool == "Task"}
    links = [e.to_dict() for e in events if e.kind == "import_note" and e.topic == "subagent"]
    assert len(tasks) == 5 and {link["tool_use_id"] for link in links} == tasks
    assert all(link["data"]["source"] == "inline" for link in links)
    assert sum(link["data"]["records"] for link in links) == 405
    # Each run is a nested loop inside its Task call, before the call's result comes back.
    starts = _of(events, "subagent_start")
    assert {e.tool_use_id for e in starts} == tasks
    sidechain = {r["uuid"] for r in _records(source) if r.get("isSidechain")}
    depth = 0
    for e in events:
        depth += (e.kind == "subagent_start") - (e.kind == "subagent_end")
        if e.kind == "message":
            assert (e.uuid in sidechain) == (depth > 0)
        if e.kind == "tool_run" and e.tool == "Task":
            assert depth == 0 and events[events.index(e) - 1].kind == "subagent_end"
    assert depth == 0


@needs_fixtures
def test_subagent_file_is_found_next_to_its_session(tmp_path: Path) -> None:
    parent = TRANSCRIPTS / "spotter-v2.1.38-task-subagent-parent.jsonl"
    agent_id = next(
        r["toolUseResult"]["agentId"]
        for r in _records(parent)
        if isinstance(r.get("toolUseResult"), dict) and "agentId" in r["toolUseResult"]
    )
    session = tmp_path / "session.jsonl"
    session.write_bytes(parent.read_bytes())
    folder = tmp_path / "session" / "subagents"
    folder.mkdir(parents=True)
    (folder / f"agent-{agent_id}.jsonl").write_bytes(
        (TRANSCRIPTS / "spotter-v2.1.39-subagent-file-agent-a2898e3.jsonl").read_bytes()
    )
    events = _import(session, tmp_path / "t.jsonl")
    links = {
        e.data["source"]: e.to_dict()
        for e in events
        if e.kind == "import_note" and e.topic == "subagent"
    }
    assert links["file"]["data"]["responses"] == 12 and links["file"]["data"]["tool_calls"] == 33
    assert links["progress"]["data"]["records"] == 19
    task = next(e for e in _of(events, "tool_run") if e.tool == "Task")
    assert links["file"]["tool_use_id"] == task.tool_use_id


@needs_fixtures
def test_torn_last_line_still_imports(tmp_path: Path) -> None:
    data = (TRANSCRIPTS / "spotter-v2.1.38-tool-heavy.jsonl").read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data.rstrip(b"\n")[:-40])
    from tracer.importers.claude_code.importer import import_claude_code

    report = import_claude_code(torn, tmp_path / "t.jsonl")
    assert report.skipped["torn last line"] == 1
    assert any("cut off" in note for note in report.notes)
    assert validate_trace(tmp_path / "t.jsonl")[1] == []


def test_a_byte_order_mark_before_the_first_line_loses_nothing(tmp_path: Path) -> None:
    """A session, its agent file and an API log saved with a BOM import as they do without."""
    layout = Path(__file__).parent / "data" / "claude-code" / "layout-2.0"
    cases = [("claude-code", layout, "5e55a0f1-0000-4000-8000-000000000001.jsonl")]
    if API_LOG.is_file():
        cases.append(("api-log", API_LOG.parent, API_LOG.name))
    for fmt, folder, name in cases:
        copy = tmp_path / fmt
        copy.mkdir()
        seen = []
        for mark in (b"", b"\xef\xbb\xbf"):  # the same paths: an API log's uuids come from them
            for source in folder.glob("*.jsonl") if fmt == "claude-code" else [folder / name]:
                (copy / source.name).write_bytes(mark + source.read_bytes())
            events = _import(copy / name, tmp_path / f"{fmt}-{len(mark)}.trace.jsonl", fmt)
            seen.append(json.dumps([e.to_dict() for e in events]))
        assert seen[0] == seen[1], fmt
        assert '"tool_run"' in seen[0]
        assert fmt == "api-log" or '"subagent_start"' in seen[0]  # the agent file was read


# -- synthetic transcripts -----------------------------------------------------------------------


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


# -- API logs ------------------------------------------------------------------------------------


def test_sse_stream_is_folded_into_a_message() -> None:
    from tracer.importers.api_log.sse import accumulate, sse_events

    raw = "".join(
        f"event: x\ndata: {json.dumps(e)}\n\n"
        for e in [
            {
                "type": "message_start",
                "message": {"id": "m", "model": "x", "content": [], "usage": {"input_tokens": 5}},
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "ping"},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "t", "name": "Bash", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"comm'},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": 'and": "ls"}'},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
    )
    message = accumulate(sse_events(raw))
    assert message["content"] == [
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}},
    ]
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 5, "output_tokens": 9}


@pytest.mark.skipif(not API_LOG.is_file(), reason=f"fixture not found: {API_LOG}")
def test_api_log_main_loop_and_side_calls(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    events = _import(API_LOG, out, "api-log")
    assert validate_trace(out)[1] == []
    pairs = _records(API_LOG)
    main_bodies = [
        p["request"]["body"]
        for p in pairs
        if p["request"]["body"]["model"].startswith("claude-sonnet")
    ]
    requests = _of(events, "request")
    assert [r.message_count for r in requests] == [1, 3, 5, 7, 9, 11, 13]
    # Each main request is rebuilt exactly as logged (its bytes match the logged content-length).
    rebuilt = [r.body for r in rebuild_requests(events)]
    assert rebuilt == main_bodies
    lengths = [
        int(p["request"]["headers"]["content-length"])
        for p in pairs
        if p["request"]["body"]["model"].startswith("claude-sonnet")
    ]
    assert [r.bytes for r in requests] == lengths
    tools = [e.tool for e in _of(events, "tool_run")]
    assert tools == ["TodoWrite", "LS", "Bash", "TodoWrite", "Write", "TodoWrite"]
    side = TraceReader(out).header["source"]["side_calls"]
    assert len(side) == 12 and sum(s["purpose"] == "quota probe" for s in side) == 8
    assert all(s["model"] == "claude-3-5-haiku-20241022" for s in side)
    assert events[-1].kind == "terminal" and events[-1].reason == "completed"
    doctor = pytest.importorskip("tracer.doctor")
    assert [f for f in doctor.run_doctor(TraceReader(out)) if f.severity == "error"] == []


@pytest.mark.skipif(not API_LOG.is_file(), reason=f"fixture not found: {API_LOG}")
def test_api_log_never_carries_auth_headers(tmp_path: Path) -> None:
    assert b"[REDACTED]" in API_LOG.read_bytes()  # the fixture does hold them
    out = tmp_path / "t.jsonl"
    assert main(["import", "api-log", str(API_LOG), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8").lower()
    for secret in ("[redacted]", "authorization", "x-api-key"):
        assert secret not in text


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


def _sse(message: dict[str, Any]) -> str:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                **{k: v for k, v in message.items() if k not in ("content", "stop_reason")},
                "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
    ]
    for i, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            events.append(
                {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                }
            )
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"]},
            "usage": {"output_tokens": 7},
        }
    )
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def _pair(
    body: dict[str, Any], status: int = 200, message: dict[str, Any] | None = None, t: float = 0.0
) -> dict[str, Any]:
    headers = {"authorization": "Bearer sk-secret-123", "x-api-key": "sk-secret-456"}
    response: dict[str, Any] = {
        "timestamp": t + 1,
        "status_code": status,
        "headers": {},
        "body": None,
    }
    if message is not None:
        response["body_raw"] = _sse(message)
    return {
        "request": {
            "timestamp": t,
            "method": "POST",
            "headers": headers,
            "url": "https://api.anthropic.com/v1/messages",
            "body": body,
        },
        "response": response,
    }


def test_api_log_retries_are_attempts_and_a_torn_line_is_dropped(tmp_path: Path) -> None:
    tools = [{"name": "Read", "input_schema": {"type": "object"}}]
    first = {
        "model": "big",
        "max_tokens": 100,
        "tools": tools,
        "stream": True,
        "messages": [{"role": "user", "content": "read x"}],
    }
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "x"}}
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": [use]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "hello"}],
            },
        ],
    }
    pairs = [
        _pair(
            {"model": "small", "max_tokens": 1, "messages": [{"role": "user", "content": "q"}]},
            message={"id": "p", "model": "small", "content": [], "stop_reason": "max_tokens"},
        ),
        _pair(first, status=529, t=1),
        _pair(
            first,
            message={"id": "m1", "model": "big", "content": [use], "stop_reason": "tool_use"},
            t=2,
        ),
        _pair(
            second,
            message={
                "id": "m2",
                "model": "big",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "it says hello"}],
            },
            t=5,
        ),
    ]
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(p) + "\n" for p in pairs) + '{"request": {"bo', encoding="utf-8"
    )
    from tracer.importers.api_log.importer import import_api_log

    out = tmp_path / "t.jsonl"
    report = import_api_log(log, out)
    events = list(TraceReader(out))
    assert validate_trace(out)[1] == []
    assert report.skipped == {"torn last line": 1}
    assert report.counts["side calls"] == 1 and report.counts["failed attempts retried"] == 1
    assert [(e.request_index, e.attempt, e.status) for e in _of(events, "http_attempt")] == [
        (1, 1, 529),
        (1, 2, 200),
    ]
    assert [e.attempts for e in _of(events, "response")] == [2, 1]
    assert [r.body for r in rebuild_requests(events)] == [first, second]
    (run,) = _of(events, "tool_run")
    assert (run.tool, run.input, run.output) == ("Read", {"file_path": "x"}, "hello")
    assert [e.line for e in _of(events, "debug_hook")][-2:] == [
        "[DEBUG] Loop turn: 2 messages: 3",
        "[DEBUG] needsFollowUp: false tool_use blocks: 0",
    ]
    assert "sk-secret" not in out.read_text(encoding="utf-8")
