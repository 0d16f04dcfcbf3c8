"""No conversation lost: the patterns of issue 18 that used to drop real history, each from a
small transcript of our own in ``tests/data/claude-code/`` (written by its ``make.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from import_helpers import doctor_errors, import_ours, of_kind, records_of, write_records

from tracer.trace.requests import rebuild_requests


def test_a_cleared_context_starts_a_second_conversation_not_a_rewind(tmp_path: Path) -> None:
    events, report, out = import_ours("v2.1-clear-context-three-conversations.jsonl", tmp_path)
    # Plan mode's clear context and /clear: three conversations, every call and result kept.
    assert [e.tool_use_id for e in of_kind(events, "tool_run")] == [
        "toolu_k1",
        "toolu_k2",
        "toolu_k3",
        "toolu_k4",
        "toolu_k6",
    ]
    assert len(of_kind(events, "response")) == 7
    assert report.skipped == {}
    # The plan loop ends where the context was cleared; the other two end with an answer.
    ends = of_kind(events, "terminal")
    assert [e.reason for e in ends] == ["aborted_tools", "completed", "completed"]
    assert "the context was cleared" in ends[0].error
    notes = [e for e in of_kind(events, "import_note") if e.topic == "context_cleared"]
    assert len(notes) == 2
    # Each new conversation's first request holds nothing of the one before.
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert [len(b) for b in bodies] == [1, 3, 1, 3, 5, 1, 3]
    assert bodies[2][0]["content"][1]["text"].startswith("Implement the following plan")
    assert bodies[5][0]["content"][-1]["text"] == "How many Python files are there?"
    assert any(n.startswith("3 conversations in this file") for n in report.notes)
    assert doctor_errors(out) == []


def test_1_0_local_commands_hanging_off_one_caveat_hide_nothing(tmp_path: Path) -> None:
    events, report, out = import_ours("v1.0-local-commands.jsonl", tmp_path)
    # The second /model points back at the caveat written before the first one; the work in
    # between (Read, Bash) used to be left out as a rewind.
    assert [e.tool_use_id for e in of_kind(events, "tool_run")] == [
        "toolu_m1",
        "toolu_m3",
        "toolu_m4",
        "toolu_m6",
    ]
    assert len(of_kind(events, "response")) == 7
    # /status (with its output) and /doctor after the last answer: local commands, not a rewind.
    assert report.skipped == {
        "local command records (/status, /doctor, ...) after the last request: none sent": 3
    }
    assert doctor_errors(out) == []


def test_hook_text_for_the_model_on_side_branches_is_kept(tmp_path: Path) -> None:
    events, report, out = import_ours("v2.1-hook-context-on-side-branches.jsonl", tmp_path)
    assert report.skipped == {}
    kept = [e for e in of_kind(events, "message") if e.type == "attachment"]
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
    assert doctor_errors(out) == []


def _nesting(events: list[Any]) -> dict[str, str | None]:
    """Each tool_run's tool_use id → the Task call whose nested loop it ran in (None: main)."""
    where: dict[str, str | None] = {}
    stack: list[str] = []
    for e in events:
        if e.kind == "subagent_start":
            stack.append(e.tool_use_id)
        elif e.kind == "subagent_end":
            stack.pop()
        elif e.kind == "tool_run":
            where[e.tool_use_id] = stack[-1] if stack else None
    return where


def test_a_retried_task_prompt_nests_each_run_in_the_call_that_ran_it(tmp_path: Path) -> None:
    events, _, out = import_ours("v1.0-task-retried-same-prompt.jsonl", tmp_path)
    # Three calls with the same prompt; the first two interrupted. The first run (one Grep,
    # cut off) ran in the first call, the answered run in the third: matched by time.
    assert [e.tool_use_id for e in of_kind(events, "subagent_start")] == ["toolu_t0", "toolu_t2"]
    assert _nesting(events) == {
        "toolu_t0": None,
        "toolu_t1": None,
        "toolu_tz": "toolu_t2",
        "toolu_t2": None,
    }
    assert len(of_kind(events, "response")) == 7  # 5 in the main loop, 1 + 1 in the runs
    assert doctor_errors(out) == []


def test_a_warmup_sidechain_is_nested_in_no_call(tmp_path: Path) -> None:
    name = "layout-2.0-warmup/5e55a0f1-0000-4000-8000-0000000000aa.jsonl"
    events, report, out = import_ours(name, tmp_path)
    # The Task call of the next day gets its own run (its agent file), not the Warmup.
    (start,) = of_kind(events, "subagent_start")
    assert (start.tool_use_id, start.prompt) == ("toolu_w1", "Find every TODO.")
    assert _nesting(events) == {"toolu_wa": "toolu_w1", "toolu_w1": None}
    assert report.skipped == {"sidechain records of no Task call found in this file": 2}
    (note,) = [n for n in report.notes if "Warmup" in n]
    assert note.endswith(
        ':1: a start-up "Warmup" sidechain (Claude Code 2.0 writes one as it '
        "starts) that no Task call of this file ran: left out, it is no part of "
        "any loop"
    )
    assert "Ready to help." not in out.read_text(encoding="utf-8")
    assert doctor_errors(out) == []


def test_a_subagent_kept_only_as_progress_records_is_imported(tmp_path: Path) -> None:
    events, _, out = import_ours("v2.1-subagent-only-in-progress-records.jsonl", tmp_path)
    (start,) = of_kind(events, "subagent_start")
    assert (start.tool_use_id, start.prompt) == ("toolu_g1", "Count the TODOs.")
    assert _nesting(events) == {"toolu_ga": "toolu_g1", "toolu_gb": "toolu_g1", "toolu_g1": None}
    assert len(of_kind(events, "response")) == 5  # 2 in the main loop, 3 in the run
    # The run's own model is sent in its requests, and the main loop's again after it.
    models = [r.body["model"] for r in rebuild_requests(events)]
    assert models == ["claude-sonnet-4-5", *["claude-haiku-4-5"] * 3, "claude-sonnet-4-5"]
    links = {
        e.data["source"]: e.data for e in of_kind(events, "import_note") if e.topic == "subagent"
    }
    assert links["progress"]["tool_calls"] == 2 and links["progress"]["responses"] == 3
    assert links["file"]["missing"]  # the run came from the mirror: its file was not kept
    assert doctor_errors(out) == []


def test_a_resent_request_and_an_unwritten_input_are_no_doctor_errors(tmp_path: Path) -> None:
    events, report, out = import_ours("v2.1-resent-after-broken-stream.jsonl", tmp_path)
    # msg_x1 ("Let me look at the", 1 output token) counted the same prompt as msg_x2: its
    # stream broke off and the request went out again. One turn, one request, two attempts.
    (attempt,) = of_kind(events, "http_attempt")
    assert attempt.request_index == 1 and "stream broke off" in attempt.error
    responses = of_kind(events, "response")
    assert [(r.message_id, r.request_index, r.attempts) for r in responses] == [
        ("msg_x2", 1, 2),
        ("msg_x3", 2, 1),
        ("msg_x4", 3, 1),
    ]
    assert report.counts["model calls cut off and sent again"] == 1
    bodies = [r.body["messages"] for r in rebuild_requests(events)]
    assert "Let me look at the" not in str(bodies)
    # msg_x4's prompt counted 12,719 tokens: 12,651 + 25 answered + 43 never written.
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "unwritten_input"]
    assert note.data == {"tokens_estimate": 43, "estimate": True}
    assert [e.reason for e in of_kind(events, "terminal")] == ["completed", "completed"]
    assert doctor_errors(out) == []


def test_a_file_that_continues_a_conversation_says_so_and_loses_nothing(tmp_path: Path) -> None:
    # 2.1.260: the session's start went to another file; this one opens with the result of a
    # call made there, and ends with the control records newer versions write.
    events, report, out = import_ours("v2.1-continued-from-another-file.jsonl", tmp_path)
    notes = {e.topic: e for e in of_kind(events, "import_note")}
    assert list(notes) == ["missing_history", "counts"]
    assert notes["missing_history"].data == {
        "parent": "as-main-in-the-other-file",
        "answers": ["toolu_w1"],
    }
    # The result is in the first request, as Claude Code sent it (after the history it lacks).
    first = next(rebuild_requests(events)).body["messages"]
    assert first[0]["content"][0]["tool_use_id"] == "toolu_w1"
    assert [e.tool_use_id for e in of_kind(events, "tool_run")] == ["toolu_w2"]
    counts = notes["counts"].data
    assert (counts["not_in_trace"], counts["answers_before_the_file"]) == (0, 1)
    assert report.skipped == {
        "last-prompt records": 1,
        "custom-title records": 1,
        "atis-latch records": 1,
        "bridge-session records": 1,
    }
    assert doctor_errors(out) == []


def test_a_result_whose_call_is_in_the_file_is_never_put_down_to_a_missing_start(
    tmp_path: Path,
) -> None:
    # The same file with the call planted on a branch of its own: the result's call is in
    # the source after all, so neither the count check nor the doctor excuse it.
    records = records_of("v2.1-continued-from-another-file.jsonl")
    planted = {
        **records[1],
        "uuid": "as-planted",
        "parentUuid": None,
        "message": {**records[1]["message"], "id": "msg_planted"},
    }
    planted["message"]["content"] = [
        {"type": "tool_use", "id": "toolu_w1", "name": "Bash", "input": {"command": "mv"}}
    ]
    path = write_records(tmp_path / "planted.jsonl", [planted, *records])
    from tracer.importers.claude_code.importer import import_claude_code
    from tracer.trace.reader import TraceReader

    out = tmp_path / "t.jsonl"
    import_claude_code(path, out)
    notes = {e.topic: e for e in TraceReader(out) if e.kind == "import_note"}
    assert notes["missing_history"].data["answers"] == []
    assert notes["counts"].data["answers_before_the_file"] == 0
    missing = {(m["kind"], m["id"]) for m in notes["counts"].data["missing"]}
    assert missing == {("tool_use", "toolu_w1"), ("tool_result", "toolu_w1")}
    assert [e.split(":")[0] for e in doctor_errors(out)] == ["tool-use-id-mismatch"]
