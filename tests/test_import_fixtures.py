"""Every real Claude Code transcript we have round-trips, and its journey says what it says.

Each fixture is imported, validated, shown, read for hooks and checked by the doctor; every
request rebuilds to the body its hash describes. The fixtures pin down what the records mean: one
response spread over five records is one call, tokens are counted once a response, a tool's raw
output is written once, a compaction starts the list afresh, sidechains and subagent files are
nested loops inside their Task calls, a torn last line or a byte-order mark costs nothing. The
fixtures live outside the repository; without them these tests skip, saying where they looked.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
from import_fixtures_helpers import API_LOG, FIXTURES, TRANSCRIPTS, _import, _of, _records

from tracer.cli.main import main
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

needs_fixtures = pytest.mark.skipif(
    not TRANSCRIPTS.is_dir(), reason=f"fixtures not found at {FIXTURES}"
)
FIXTURE_NAMES = sorted(p.name for p in TRANSCRIPTS.glob("*.jsonl")) if TRANSCRIPTS.is_dir() else []


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
