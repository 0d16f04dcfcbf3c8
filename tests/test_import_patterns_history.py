"""Which history an import rebuilds, for the chain patterns real sessions contain.

Each file in ``tests/data/claude-code/`` (written by its ``make.py``) holds one pattern seen in a
real session, in the record shapes of that Claude Code version, so these tests run in a fresh
clone without ``../shared``; each test says what the pattern used to break. Here: compactions (a
1.0 summary at the root, a boundary whose logical parent was never written, one with nothing
answered before it), a result written before its tool use, system records on the chain, a
rewound prompt, an orphan result, an API error, an image prompt with a tool that never returned,
and polling the same job.
"""

from __future__ import annotations

import json
from pathlib import Path

from import_helpers import (
    DATA,
    doctor_errors,
    import_ours,
    of_kind,
    records_of,
    write_records,
)

from tracer.doctor import run_doctor
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests


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
