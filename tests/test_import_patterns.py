"""Importing the patterns real Claude Code sessions contain, from small transcripts of our own.

Each file in ``tests/data/claude-code/`` (written by its ``make.py``) holds one pattern seen in a
real session, in the record shapes of that Claude Code version, so these tests run in a fresh
clone without ``../shared``. Each test says what the pattern used to break.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from import_helpers import DATA, doctor_errors, import_ours, of_kind, records_of, write_records

from tracer.cli.main import main
from tracer.doctor import run_doctor
from tracer.files.paths import ROOT
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

TRANSCRIPTS = sorted(
    p for p in DATA.rglob("*.jsonl") if p.stat().st_size and not p.name.startswith("agent-")
)


def test_1_0_compaction_keeps_the_history_before_the_summary(tmp_path: Path) -> None:
    events, report, out = import_ours("v1.0-compaction-summary-root.jsonl", tmp_path)
    # All three tool calls, the MCP call among them, and the user's own first prompt.
    assert [e.tool for e in of_kind(events, "tool_run")] == ["Bash", "mcp__notes__save", "Bash"]
    assert of_kind(events, "session_start")[0].prompt.startswith("Count the lines")
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "compaction"]
    assert note.data["logical_parent_uuid"] == "as-main-006"  # the last answer before it
    assert note.data["before_count"] == 6 and note.data["after_count"] == 1
    # After the compaction the request starts from the summary, not from the old history.
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert bodies[3][0]["content"][0]["text"].startswith("This session is being continued")
    assert any("without a compact_boundary" in n for n in report.notes)
    assert doctor_errors(out) == []


UNWRITTEN = "v2.1-compaction-unwritten-logical-parent.jsonl"


def test_a_boundary_whose_logical_parent_was_never_written_keeps_the_history_before(
    tmp_path: Path,
) -> None:
    # The boundary names a message Claude Code never wrote: the first half was left out as
    # "an earlier conversation in the same file", its two calls with it.
    events, report, out = import_ours(UNWRITTEN, tmp_path)
    assert [e.tool for e in of_kind(events, "tool_run")] == ["Bash", "Read", "Bash"]
    assert of_kind(events, "session_start")[0].prompt == "Which test is the slowest?"
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "compaction"]
    assert note.data == {
        "trigger": "auto",
        "pre_tokens": 167000,
        "logical_parent_uuid": "at-main-never-written",
        "previous_leaf": "us-main-006",  # the last result written before the boundary
        "before_count": 5,
        "after_count": 1,
    }
    assert report.skipped == {"progress/hook_progress records": 1}
    assert any("logical parent not in this file" in n and "(line 6)" in n for n in report.notes)
    (counts,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    assert counts.data["not_in_trace"] == 0
    assert doctor_errors(out) == []
    # Written as a linked boundary is: the same requests, the third from the summary alone.
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert len(bodies) == 4 and len(bodies[2]) == 1
    assert bodies[2][0]["content"].startswith("This session is being continued")
    linked = [
        {**r, "logicalParentUuid": "us-main-006"} if r.get("subtype") == "compact_boundary" else r
        for r in records_of(UNWRITTEN)
    ]
    import_claude_code(write_records(tmp_path / "linked.jsonl", linked), tmp_path / "linked.trace")
    events = list(TraceReader(tmp_path / "linked.trace"))
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "compaction"]
    assert "previous_leaf" not in note.data
    assert [r.body["messages"] for r in rebuild_requests(events)] == bodies


def test_a_boundary_with_no_answered_conversation_before_it_starts_the_import(
    tmp_path: Path,
) -> None:
    records = records_of(UNWRITTEN)
    at = next(k for k, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    # Nothing before the boundary (the file was cut there), or only a prompt never answered:
    # the import starts at the compaction, as it always did.
    for name, before in (("tail", []), ("unanswered", records[:1])):
        source = write_records(tmp_path / f"{name}.jsonl", [*before, *records[at:]])
        report = import_claude_code(source, tmp_path / f"{name}.trace")
        events = list(TraceReader(tmp_path / f"{name}.trace"))
        assert [e.tool_use_id for e in of_kind(events, "tool_run")] == ["toolu_v3"]
        assert not any("logical parent not in this file" in n for n in report.notes)
        assert report.skipped == (
            {"records off the active branch (rewound or edited)": 1} if before else {}
        )


def test_a_result_written_before_its_tool_use_stays_in_its_own_turn(tmp_path: Path) -> None:
    raw = [
        json.loads(x)
        for x in (DATA / "v2.1-result-before-assistant.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    order = [r["uuid"] for r in raw]
    assert order.index("us-main-005") < order.index("as-main-later")  # the pattern is there
    events, _, out = import_ours("v2.1-result-before-assistant.jsonl", tmp_path)
    runs = {e.tool_use_id: e.turn for e in of_kind(events, "tool_run")}
    assert runs == {"toolu_r1": 1, "toolu_r2": 2}
    assert doctor_errors(out) == []


def test_system_records_on_the_chain_do_not_hide_finished_work(tmp_path: Path) -> None:
    events, report, out = import_ours("v2.1-system-records-on-chain.jsonl", tmp_path)
    assert len(of_kind(events, "response")) == 5
    assert [e.input["command"] for e in of_kind(events, "tool_run")] == [
        "pytest -q",
        "ruff check .",
        "python --version",
    ]
    assert not any("off the active branch" in k for k in report.skipped)
    assert [e.reason for e in of_kind(events, "terminal")] == ["completed", "completed"]
    assert doctor_errors(out) == []


def test_a_rewound_prompt_is_named_so_and_other_skips_are_named_for_what_they_are(
    tmp_path: Path,
) -> None:
    source = DATA / "v2.1-system-records-on-chain.jsonl"
    records = [json.loads(x) for x in source.read_text(encoding="utf-8").splitlines()]
    first = records[0]
    redo = {**first, "uuid": "us-redo", "message": {"role": "user", "content": "Run lint."}}
    dangling = {
        **records[2],
        "uuid": "as-dangling",
        "parentUuid": "not-in-file",
        "message": {**records[2]["message"], "id": "msg_dangling"},
    }
    path = tmp_path / "s.jsonl"
    path.write_text(
        "".join(json.dumps(r) + "\n" for r in [redo, dangling, *records]), encoding="utf-8"
    )
    report = import_claude_code(path, tmp_path / "t.jsonl")
    assert report.skipped["records off the active branch (rewound or edited)"] == 1
    assert report.skipped["records whose parent is not in this file"] == 1


def test_an_orphan_result_stays_for_the_doctor(tmp_path: Path) -> None:
    events, report, out = import_ours("v2.1-orphan-result.jsonl", tmp_path)
    assert "toolu_ghost" in {e.tool_use_id for e in of_kind(events, "mapping")}
    assert not report.skipped
    assert [f.rule for f in run_doctor(TraceReader(out))] == ["tool-use-id-mismatch"]


def test_an_api_error_ends_the_loop_with_model_error(tmp_path: Path) -> None:
    events, _, out = import_ours("v2.1-api-error.jsonl", tmp_path)
    (end,) = of_kind(events, "terminal")
    assert end.reason == "model_error"
    assert end.error == "authentication_failed: Invalid API key · Please run /login"
    # The request went out (with the prompt) and failed; the notice is never sent back.
    (request,) = rebuild_requests(events)
    assert request.body["messages"] == [{"role": "user", "content": "Hello there."}]
    assert doctor_errors(out) == []


def test_image_prompt_unknown_kind_and_a_tool_that_never_returned(tmp_path: Path) -> None:
    events, report, _ = import_ours("v2.1-image-prompt-unfinished-tool.jsonl", tmp_path)
    prompt = of_kind(events, "session_start")[0].prompt
    assert prompt == "[1 image] 这张截图里的报错是什么意思？我已经重启过两次了，还是一样。"
    assert report.skipped["records of an unknown kind 'brand-new-kind' (not read)"] == 1
    assert report.skipped["file-history-snapshot records"] == 1  # ignored on purpose
    (end,) = of_kind(events, "terminal")
    assert end.reason == "aborted_tools"
    assert "before the result of 1 of 1 tool call(s) (Bash) was written" in end.error


def test_a_subagent_file_without_its_prompt_says_so_and_the_doctor_knows(tmp_path: Path) -> None:
    events, _, out = import_ours("v2.1-subagent-without-prompt.jsonl", tmp_path)
    assert [e.topic for e in of_kind(events, "import_note")] == ["missing_prompt", "counts"]
    assert of_kind(events, "request")[0].message_count == 0
    assert doctor_errors(out) == []


def test_the_2_0_layout_finds_the_agent_file_beside_the_session(tmp_path: Path) -> None:
    events, _, _ = import_ours("layout-2.0/5e55a0f1-0000-4000-8000-000000000001.jsonl", tmp_path)
    (link,) = [e for e in of_kind(events, "import_note") if e.topic == "subagent"]
    assert link.data["file"].endswith("layout-2.0/agent-b1d2e3f4.jsonl")
    assert link.data["tool_calls"] == 1 and "missing" not in link.data


def test_a_missing_agent_file_names_where_it_was_looked_for(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(
        (DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl").read_bytes()
    )
    import_claude_code(session, tmp_path / "t.jsonl")
    (link,) = [
        e
        for e in TraceReader(tmp_path / "t.jsonl")
        if e.kind == "import_note" and e.topic == "subagent"
    ]
    assert link.text == (
        f"subagent b1d2e3f4: no agent-b1d2e3f4.jsonl in {tmp_path}/s/subagents nor in {tmp_path}"
    )


def test_polling_the_same_job_is_not_a_loop_that_never_ends(tmp_path: Path) -> None:
    events, _, out = import_ours("v2.1-polling-bash-output.jsonl", tmp_path)
    assert [e.input for e in of_kind(events, "tool_run")][1:] == [{"bash_id": "7"}] * 4
    assert run_doctor(TraceReader(out)) == []
    # The same polls getting the same answer each time: that loop learns nothing.
    source = (DATA / "v2.1-polling-bash-output.jsonl").read_text(encoding="utf-8")
    stuck = tmp_path / "stuck.jsonl"
    stuck.write_text(
        source.replace("building 2/3", "building 1/3")
        .replace("building 3/3", "building 1/3")
        .replace('"done"', '"building 1/3"')
        .replace("<stdout>done", "<stdout>building 1/3"),
        encoding="utf-8",
    )
    import_claude_code(stuck, tmp_path / "s.trace.jsonl")
    (finding,) = run_doctor(TraceReader(tmp_path / "s.trace.jsonl"))
    assert finding.rule == "loop-not-ending" and "same result each time" in finding.message


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_the_doctor_finds_no_error_but_the_ones_each_file_was_built_with(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    import_claude_code(path, out)
    expected = ["tool-use-id-mismatch"] if "orphan" in path.name else []
    assert [f.rule for f in run_doctor(TraceReader(out)) if f.severity == "error"] == expected
    assert main(["show", str(out)]) == 0


def test_list_skips_agent_files_and_empty_files_and_reads_list_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    for file in (DATA / "layout-2.0").iterdir():
        (project / file.name).write_bytes(file.read_bytes())
    old = project / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
    live = project / "11111111-0000-4000-8000-000000000002.jsonl"
    live.write_bytes((DATA / "v2.1-image-prompt-unfinished-tool.jsonl").read_bytes())
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert main(["import", "claude-code", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert " live " in lines[0] and live.name in lines[0] and "[1 image] 这张截图" in lines[0]
    assert " live " not in lines[1] and "Find the TODOs with a subagent." in lines[1]


def test_show_cuts_cjk_text_by_display_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracer.text.cells import cells

    _, _, out = import_ours("v2.1-image-prompt-unfinished-tool.jsonl", tmp_path)
    assert main(["show", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    prompt = first.split(": ", 1)[1]
    assert prompt.startswith("[1 image] 这张") and prompt.endswith("…")
    assert cells(prompt) <= 48 < len(prompt) * 2


# -- an API log holding two conversations --------------------------------------------------------


def _conversation(prompt: str, command: str, answer: str, t0: float) -> list[dict[str, Any]]:
    """Two requests of one agent loop: a Bash call, then the answer."""
    tools = [{"name": "Bash", "input_schema": {"type": "object"}}]
    first = {
        "model": "big",
        "max_tokens": 100,
        "tools": tools,
        "messages": [{"role": "user", "content": prompt}],
    }
    call = {
        "type": "tool_use",
        "id": f"toolu_{command}",
        "name": "Bash",
        "input": {"command": command},
    }
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": [call]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "ok"}],
            },
        ],
    }

    def pair(body: dict[str, Any], content: list[Any], stop: str, t: float) -> dict[str, Any]:
        message = {
            "type": "message",
            "id": f"msg_{t}",
            "model": "big",
            "role": "assistant",
            "content": content,
            "stop_reason": stop,
            "usage": {"output_tokens": 3},
        }
        return {
            "request": {
                "timestamp": t,
                "method": "POST",
                "headers": {},
                "url": "https://api.anthropic.com/v1/messages",
                "body": body,
            },
            "response": {"timestamp": t + 1, "status_code": 200, "body": message},
        }

    return [
        pair(first, [call], "tool_use", t0),
        pair(second, [{"type": "text", "text": answer}], "end_turn", t0 + 10),
    ]


def test_an_api_log_with_two_conversations_imports_each_as_its_own_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _conversation("list the files", "ls", "three files", 0)
    two = _conversation("show the date", "date", "it is Monday", 1)
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(p) + "\n" for p in [one[0], two[0], one[1], two[1]]), encoding="utf-8"
    )
    runs = {}
    for n in (1, 2):
        out = tmp_path / f"t{n}.jsonl"
        assert main(["import", "api-log", str(log), "-o", str(out), "--thread", str(n)]) == 0
        events = list(TraceReader(out))
        runs[n] = [e.input["command"] for e in of_kind(events, "tool_run")]
        assert of_kind(events, "session_start")[0].prompt in ("list the files", "show the date")
        assert [e.reason for e in of_kind(events, "terminal")] == ["completed"]
        assert run_doctor(TraceReader(out)) == []
    assert runs == {1: ["ls"], 2: ["date"]}
    err = capsys.readouterr().err
    assert "the log holds 2 conversations" in err and "thread 2: big, 2 request(s)" in err
    assert main(["import", "api-log", str(log), "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "thread 1: big, 2 request(s), 1 tool call(s): list the files",
        "thread 2: big, 2 request(s), 1 tool call(s): show the date",
    ]
    assert (
        main(["import", "api-log", str(log), "-o", str(tmp_path / "x.jsonl"), "--thread", "3"]) == 2
    )
    assert "there is no thread 3" in capsys.readouterr().err
    # Without --thread, each conversation goes into a trace of its own, and the import says so.
    assert main(["import", "api-log", str(log), "-o", str(tmp_path / "all.trace.jsonl")]) == 0
    err = capsys.readouterr().err
    second = tmp_path / "all.thread-2.trace.jsonl"
    assert (
        f"each conversation went into its own trace: thread 1 → {tmp_path / 'all.trace.jsonl'}; "
        f"thread 2 → {second}"
    ) in err
    assert f"wrote {second}" in err
    commands = {
        out.name: [e.input["command"] for e in of_kind(list(TraceReader(out)), "tool_run")]
        for out in (tmp_path / "all.trace.jsonl", second)
    }
    assert commands == {"all.trace.jsonl": ["ls"], "all.thread-2.trace.jsonl": ["date"]}
    assert run_doctor(TraceReader(second)) == []


# -- the count check ---------------------------------------------------------------------------

SHARED = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"
EVERY = TRANSCRIPTS + (sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else [])


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_every_tool_block_of_the_source_is_in_the_trace_or_named(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    report = import_claude_code(path, out)
    events = list(TraceReader(out))
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    counts = note.data
    # Counted here once more, by hand: every block of every record, progress records included.
    blocks = [b for r in _source(path) for b in _content(r)]
    uses = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
    results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
    assert (counts["source_tool_use"], counts["source_tool_result"]) == (len(uses), len(results))
    asked = {t for e in of_kind(events, "follow_up") for t in e.tool_use_ids}
    ran = {e.tool_use_id for e in of_kind(events, "tool_run")}
    assert counts["trace_tool_calls"] == len(asked) and counts["trace_tool_runs"] == len(ran)
    named = {(m["kind"], m["id"]) for m in counts["missing"]}
    # A result whose call is in no record of the file, carried in a message of the trace: the
    # file continues a conversation that began elsewhere, and no tool_run can hold it.
    carried = {b.get("tool_use_id") for e in of_kind(events, "message") for b in _blocks(e)}
    before = {r for r in results - ran if r not in uses and r in carried}
    assert counts["answers_before_the_file"] == len(before)
    assert {("tool_use", u) for u in uses - asked} | {
        ("tool_result", r) for r in results - ran - before
    } == named
    assert counts["misplaced"] == []
    assert any(n.startswith("count check:") for n in report.notes)


def _content(rec: dict[str, Any]) -> list[dict[str, Any]]:
    data = rec.get("data")
    if rec.get("type") == "progress" and isinstance(data, dict):
        rec = data.get("message") if isinstance(data.get("message"), dict) else {}
    content = (
        (rec.get("message") or {}).get("content") if isinstance(rec.get("message"), dict) else None
    )
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _blocks(message: Any) -> list[dict[str, Any]]:
    """The content blocks of a recorded ``message`` event."""
    content = message.content
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _source(path: Path) -> list[dict[str, Any]]:
    """The records of a transcript and of the agent files beside it (2.0 layout)."""
    files = [path]
    if path.parent.name.startswith("layout-2.0"):
        files += sorted(path.parent.glob("agent-*.jsonl"))
    return [json.loads(x) for f in files for x in f.read_text(encoding="utf-8").splitlines() if x]


def test_a_tool_call_on_a_rewound_branch_is_named_in_the_count_check(tmp_path: Path) -> None:
    records = records_of("v2.1-orphan-result.jsonl")
    prompt = records[0]
    tried = {
        **records[1],
        "uuid": "as-tried",
        "parentUuid": "us-retry",
        "message": {
            **records[1]["message"],
            "id": "msg_tried",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_tried",
                    "name": "Bash",
                    "input": {"command": "ls"},
                }
            ],
        },
    }
    retry = {**prompt, "uuid": "us-retry", "message": {"role": "user", "content": "Read it."}}
    path = tmp_path / "s.jsonl"
    path.write_text(
        "".join(json.dumps(r) + "\n" for r in [retry, tried, *records]), encoding="utf-8"
    )
    report = import_claude_code(path, tmp_path / "t.jsonl")
    (line,) = [n for n in report.notes if n.startswith("count check:")]
    assert line.endswith(
        f"not in the trace: tool_use toolu_tried (assistant, {path}:2) (left out: records off "
        "the active branch (rewound or edited), from line 1; its 1 tool call(s) never ran)"
    )
    assert report.skipped == {"records off the active branch (rewound or edited)": 2}


def test_malformed_records_are_counted_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of("v2.1-system-records-on-chain.jsonl")
    records[2]["message"]["content"] = [7, *records[2]["message"]["content"]]  # a block, not {}
    records[1]["uuid"] = 12  # an id that is not a string
    records.insert(3, {**records[3], "uuid": "bad", "message": ["not", "an", "object"]})
    records.append(
        {
            "type": "assistant",
            "uuid": "x",
            "parentUuid": [],
            "message": {"content": 5, "usage": "none"},
        }
    )
    path = write_records(tmp_path / "s.jsonl", records)
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 content blocks that are not objects with a type" in err
    assert "1 user records without a message object" in err
    assert "fields of the wrong type (uuid; read as missing)" in err
    assert validate_trace(out)[1] == []


def test_a_result_whose_content_is_neither_text_nor_blocks_still_makes_a_valid_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fuzzer's retype: a tool_result whose content is -1, and a block with no type. The import
    # used to write them as they were, and then every reader refused the trace it had written.
    records = records_of("v2.1-result-before-assistant.jsonl")
    answered = next(r for r in records if r.get("toolUseResult") is not None)
    block = answered["message"]["content"][0]
    block["content"] = -1
    answered["message"]["content"].append({"text": "a block without a type"})
    path = write_records(tmp_path / "s.jsonl", records)
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(path), "-o", str(out)]) == 0
    assert "1 content blocks that are not objects with a type" in capsys.readouterr().err
    assert validate_trace(out)[1] == []
    by_id = {e.tool_use_id: e for e in of_kind(list(TraceReader(out)), "mapping")}
    assert by_id[block["tool_use_id"]].block["content"] == "-1"  # read as its JSON text
    assert main(["export", str(out), "--format", "md", "-o", str(tmp_path / "t.md")]) == 0


def test_a_progress_record_whose_data_type_is_not_text_is_counted_not_fatal(
    tmp_path: Path,
) -> None:
    records = records_of("v2.1-result-before-assistant.jsonl")
    odd = {"type": "progress", "uuid": "p-odd", "parentUuid": None, "data": {"type": ["hook"]}}
    path = write_records(tmp_path / "s.jsonl", [odd, *records])
    report = import_claude_code(path, tmp_path / "t.jsonl")
    assert report.skipped["progress records"] == 1
    assert validate_trace(tmp_path / "t.jsonl")[1] == []
