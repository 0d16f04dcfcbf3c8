"""Each bundled scenario teaches one point of chapter 12, and its recording shows that point.

Every scenario in ``chapters/ch12/scenarios`` is recorded once per session (for real: workspace,
git, shell commands, the SDK against the scripted transport) and the tests read the point back
from the trace events and from the requests rebuilt out of them, the way a reader would check it
in ``tracer show`` or the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tracer.chapter.guide import load_guide
from tracer.chapter.scenario import load_scenario
from tracer.files.paths import SCENARIOS_DIR
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

SCENARIOS = sorted(SCENARIOS_DIR.glob("*.yaml"))


class Trace:
    """One recorded scenario: its events, and the request bodies rebuilt from them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reader = TraceReader(path)
        self.events = list(self.reader)
        self.requests = [r.body for r in rebuild_requests(self.events)]

    def of(self, kind: str, turn: int | None = None) -> list[Any]:
        return [e for e in self.events if e.kind == kind and (turn is None or e.turn == turn)]

    def stages(self) -> set[str]:
        return {e.stage for e in self.events if e.stage}

    @property
    def terminal(self) -> Any:
        assert self.events[-1].kind == "terminal"
        return self.events[-1]

    def tool_run(self, tool_use_id: str) -> Any:
        return next(e for e in self.of("tool_run") if e.tool_use_id == tool_use_id)

    def message(self, uuid: str) -> Any:
        return next(e for e in self.of("message") if e.uuid == uuid)


@pytest.fixture(scope="module")
def traces(recorded: Callable[[Path], Path]) -> dict[str, Trace]:
    return {path.stem: Trace(recorded(path)) for path in SCENARIOS}


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


# -- every scenario ------------------------------------------------------------------------------


def test_there_is_a_scenario_for_every_teaching_point() -> None:
    numbers = {p.name[:3] for p in SCENARIOS}
    assert numbers >= {f"{n:02d}-" for n in range(1, 14)}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_names_its_file_and_a_guide_section(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert set(scenario.title) == {"zh", "en"}
    assert scenario.section is not None
    assert load_guide().section(scenario.section) is not None, scenario.section


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_recording_ends_and_every_request_holds_matched_results(
    path: Path, traces: dict[str, Trace]
) -> None:
    trace = traces[path.stem]
    assert trace.terminal.reason in ("completed", "max_turns", "aborted_tools")
    for body in trace.requests:
        asked: list[str] = []
        for message in body["messages"]:
            parts = _parts(message)
            answered = [p["tool_use_id"] for p in parts if p["type"] == "tool_result"]
            # Every pending tool_use is answered by the very next user message, results first.
            assert answered == asked, (path.stem, answered, asked)
            head = [p["type"] for p in parts[: len(answered)]]
            assert head == ["tool_result"] * len(answered)
            asked = [p["id"] for p in parts if p["type"] == "tool_use"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_recording_is_valid_against_the_schema(path: Path, traces: dict[str, Trace]) -> None:
    from tracer.trace.schema import validate_trace

    _count, problems, _notes = validate_trace(traces[path.stem].path)
    assert problems == []


def test_each_checkpoint_can_be_seen_in_its_scenario(traces: dict[str, Trace]) -> None:
    for checkpoint in load_guide().checkpoints:
        assert checkpoint.stage in traces[checkpoint.scenario].stages(), checkpoint.id


# -- 01: the main walk ---------------------------------------------------------------------------


def test_01_main_walk_counts_the_books_3_7_11(traces: dict[str, Trace]) -> None:
    trace = traces["01-main-walk"]
    loop_lines = [e.line for e in trace.of("debug_hook") if e.hook == "loop_turn"]
    assert loop_lines[:3] == [
        "[DEBUG] Loop turn: 1 messages: 3",
        "[DEBUG] Loop turn: 2 messages: 7",
        "[DEBUG] Loop turn: 3 messages: 11",
    ]
    # The API is sent the merged list: 1, 3, 5 messages.
    assert [len(body["messages"]) for body in trace.requests][:3] == [1, 3, 5]


# -- 02: the error path --------------------------------------------------------------------------


def test_02_bad_input_becomes_a_tagged_error_and_the_model_corrects_itself(
    traces: dict[str, Trace],
) -> None:
    trace = traces["02-error-path"]
    first, second = trace.of("mapping")
    assert first.block["is_error"] is True
    assert first.block["content"].startswith("<tool_use_error>InputValidationError: Read failed")
    assert first.block["content"].endswith("</tool_use_error>")
    assert trace.tool_run(first.tool_use_id).error_kind == "input_validation"
    # Refused before the tool and before any permission check.
    assert first.tool_use_id not in {e.tool_use_id for e in trace.of("permission")}
    # The error travels like a success: wrapped, appended, resent.
    sent = [p for p in _parts(trace.requests[1]["messages"][-1]) if p["type"] == "tool_result"]
    # The block as mapped, plus the cache breakpoint the newest block of a request carries.
    assert sent == [{**first.block, "cache_control": {"type": "ephemeral"}}]
    # The retry fixes the parameter and succeeds.
    assert trace.tool_run(second.tool_use_id).input == {"file_path": "settings.ini"}
    assert not second.block.get("is_error")
    assert "port = 8431" in second.block["content"]
    assert trace.terminal.reason == "completed"


# -- 03: three tools in one turn -----------------------------------------------------------------


def test_03_three_results_three_internal_messages_one_api_message(traces: dict[str, Trace]) -> None:
    trace = traces["03-three-tools"]
    (follow_up,) = trace.of("follow_up", turn=1)
    ids = follow_up.tool_use_ids
    assert len(ids) == 3
    starts = trace.of("tool_start", turn=1)
    assert len({s.batch for s in starts}) == 1 and all(s.concurrent for s in starts)
    wraps = trace.of("wrapping", turn=1)
    assert [w.tool_use_id for w in wraps] == ids  # pushed three times, in the model's order
    assert len({w.message_uuid for w in wraps}) == 3
    (appended,) = trace.of("appending", turn=1)
    assert appended.tool_result_count == 3
    assert appended.after_count - appended.before_count == appended.assistant_count + 3
    assert appended.api_after_count - appended.api_before_count == 2  # one assistant, one user
    last = trace.requests[1]["messages"][-1]
    assert last["role"] == "user"
    assert [p["type"] for p in last["content"]] == ["tool_result"] * 3
    assert [p["tool_use_id"] for p in last["content"]] == ids


# -- 04: permission with feedback ----------------------------------------------------------------


def test_04_approval_feedback_follows_the_result_in_the_same_message(
    traces: dict[str, Trace],
) -> None:
    trace = traces["04-permission-feedback"]
    approved = next(e for e in trace.of("permission") if e.decision == "approve" and e.feedback)
    wrap = next(e for e in trace.of("wrapping") if e.tool_use_id == approved.tool_use_id)
    assert wrap.feedback == approved.feedback
    content = trace.message(wrap.message_uuid).content
    assert [b["type"] for b in content] == ["tool_result", "text"]
    assert content[1]["text"] == approved.feedback
    sent = trace.requests[approved.turn]["messages"][-1]  # the request of the next turn
    assert [p["type"] for p in sent["content"]] == ["tool_result", "text"]
    assert sent["content"][1]["text"] == approved.feedback


def test_04_rejection_with_feedback_keeps_the_loop_going(traces: dict[str, Trace]) -> None:
    trace = traces["04-permission-feedback"]
    rejected = next(e for e in trace.of("permission") if e.decision == "reject")
    assert rejected.feedback
    run = trace.tool_run(rejected.tool_use_id)
    assert run.error_kind == "permission"
    block = next(e.block for e in trace.of("mapping") if e.tool_use_id == rejected.tool_use_id)
    assert block["is_error"] is True
    assert block["content"].endswith(rejected.feedback)
    assert "<tool_use_error>" not in block["content"]
    # No abort: the next turn asks the model again, and it follows the feedback.
    assert trace.of("request", turn=rejected.turn + 1)
    revert = trace.of("tool_run", turn=rejected.turn + 1)[0]
    assert revert.input["command"] == "git revert --no-edit HEAD"
    assert "Revert" in revert.output["stdout"]
    assert trace.terminal.reason == "completed"


# -- 05: max turns -------------------------------------------------------------------------------


def test_05_max_turns_stops_after_the_tools_ran_and_never_sends_them(
    traces: dict[str, Trace],
) -> None:
    trace = traces["05-max-turns"]
    assert trace.terminal.reason == "max_turns"
    assert trace.terminal.turn_count == 3  # max_turns + 1, as Claude Code reports it
    assert len(trace.requests) == 2  # the model was called max_turns times
    check = trace.of("max_turns_check")[-1]
    assert (check.next_turn_count, check.max_turns, check.exceeded) == (3, 2, True)
    reached = [
        m
        for m in trace.of("message")
        if m.type == "attachment" and m.attachment["type"] == "max_turns_reached"
    ]
    assert [m.attachment for m in reached] == [
        {"type": "max_turns_reached", "maxTurns": 2, "turnCount": 3}
    ]
    last_results = {e.tool_use_id for e in trace.of("wrapping", turn=2)}
    assert len(last_results) == 2  # the last tools ran and their results were wrapped ...
    sent = {
        p.get("tool_use_id") for body in trace.requests for m in body["messages"] for p in _parts(m)
    }
    assert not last_results & sent  # ... but no request ever carried them


# -- 06: a large output --------------------------------------------------------------------------


def test_06_large_output_is_persisted_with_a_preview(traces: dict[str, Trace]) -> None:
    trace = traces["06-large-output"]
    mapped = trace.of("mapping")[0]
    assert mapped.persisted is not None
    assert mapped.persisted["threshold"] == 30_000
    assert mapped.mapped_length == 41_480  # the number the scenario's comment gives
    assert "41,480 characters" in (SCENARIOS_DIR / "06-large-output.yaml").read_text()
    content = mapped.block["content"]
    assert content.startswith("<persisted-output>\nOutput too large (")
    assert "Preview (first 2KB):\n2026-05-15 09:00 GET /api/items/1 200\n" in content
    assert content.endswith("\n...\n</persisted-output>")
    assert len(content) < 2_500
    # The model gets the preview, not the output.
    sent = trace.requests[1]["messages"][-1]["content"][0]
    assert sent["content"] == content
    # The whole output is kept beside the trace.
    saved = trace.path.parent / mapped.persisted["saved"]
    assert saved.parent == trace.path.with_name(trace.path.stem + ".tool-results")
    text = saved.read_text(encoding="utf-8")
    assert text == trace.tool_run(mapped.tool_use_id).output["stdout"].strip()
    assert len(text.splitlines()) == 1041
    assert "GET /api/export 500" in text and "GET /api/export 500" not in content


# -- 07: an edit ---------------------------------------------------------------------------------


def test_07_edit_diff_stays_in_tool_use_result_model_gets_one_sentence(
    traces: dict[str, Trace],
) -> None:
    trace = traces["07-edit"]
    edit = next(e for e in trace.of("tool_run") if e.tool == "Edit")
    (hunk,) = edit.output["structuredPatch"]
    assert "-    if total > FREE_FROM:" in hunk["lines"]
    assert "+    if total >= FREE_FROM:" in hunk["lines"]
    block = next(e.block for e in trace.of("mapping") if e.tool_use_id == edit.tool_use_id)
    assert block["content"] == f"The file {edit.output['filePath']} has been updated successfully."
    wrap = next(e for e in trace.of("wrapping") if e.tool_use_id == edit.tool_use_id)
    message = trace.message(wrap.message_uuid)
    assert trace.reader.tool_use_result(message)["structuredPatch"] == [hunk]
    sent = trace.requests[edit.turn]
    assert "structuredPatch" not in str(sent) and "FREE_FROM:" not in str(sent["messages"][-1])
    # To see the change the model must ask: git diff shows the real diff.
    diff = trace.of("mapping")[-1].block["content"]
    assert "+    if total >= FREE_FROM:" in diff


# -- 08: a failing command -----------------------------------------------------------------------


def test_08_nonzero_exit_is_an_error_starting_with_exit_code(traces: dict[str, Trace]) -> None:
    trace = traces["08-failing-command"]
    run = trace.of("tool_run")[0]
    assert run.output["exit_code"] == 3
    assert run.output["stdout"] == "checking config.ini ...\n"
    assert run.output["stderr"] == "config.ini: missing required key 'port'\n"
    assert run.is_error and run.error_kind == "exit_code"
    block = trace.of("mapping")[0].block
    assert block["is_error"] is True
    assert block["content"] == (
        "Exit code 3\nchecking config.ini ...\nconfig.ini: missing required key 'port'"
    )
    hooks = [e.line for e in trace.of("debug_hook")]
    assert "[DEBUG] Tool result: Bash is_error: true content length: 75" in hooks
    assert trace.terminal.reason == "completed"


# -- 09: no tools --------------------------------------------------------------------------------


def test_09_answer_without_tools_ends_on_the_first_turn(traces: dict[str, Trace]) -> None:
    trace = traces["09-no-tools"]
    (follow_up,) = trace.of("follow_up")
    assert follow_up.turn == 1 and follow_up.needs_follow_up is False
    assert follow_up.tool_use_ids == []
    assert len(trace.requests) == 1
    assert not trace.stages() & {
        "permission",
        "tool_run",
        "mapping",
        "wrapping",
        "appending",
        "max_turns_check",
    }
    assert (trace.terminal.reason, trace.terminal.turn_count) == ("completed", 1)
    assert [e.line for e in trace.of("debug_hook")] == [
        "[DEBUG] Loop turn: 1 messages: 1",
        "[DEBUG] needsFollowUp: false tool_use blocks: 0",
    ]


# -- 10-13: what the guide describes and a reader wants to see -------------------------------------


def test_10_validate_input_and_unknown_tool_are_tagged_without_the_schema_prefix(
    traces: dict[str, Trace],
) -> None:
    from tracer.chapter.error_paths import error_path

    trace = traces["10-tool-use-error-forms"]
    runs = {e.tool_use_id: e for e in trace.of("tool_run")}
    mapped = {e.tool_use_id: e for e in trace.of("mapping")}
    edit_refused, deploy = [i for i, r in runs.items() if r.error_kind]
    assert runs[edit_refused].error_kind == "validate_input"
    assert mapped[edit_refused].block["content"] == (
        '<tool_use_error>String to replace not found in file.\nString: return "Hi"</tool_use_error>'
    )
    assert "InputValidationError" not in mapped[edit_refused].block["content"]
    assert runs[deploy].error_kind == "unknown_tool"
    assert mapped[deploy].block["content"] == (
        "<tool_use_error>Error: No such tool available: Deploy</tool_use_error>"
    )
    for tool_use_id in (edit_refused, deploy):
        assert mapped[tool_use_id].block["is_error"] is True
        path = error_path(runs[tool_use_id].error_kind)
        assert path is not None and path.tagged and not path.via_add_tool_result
    # Neither reached addToolResult in 2.1.88: the book's Tool result line is tracer's only.
    marked = [e for e in trace.of("debug_hook") if e.hook == "tool_result" and e.tracer_only]
    assert len(marked) == 2
    assert trace.terminal.reason == "completed"


def test_11_a_rejection_without_feedback_aborts_the_turn(traces: dict[str, Trace]) -> None:
    from tracer.agent.permissions import REJECT_MESSAGE
    from tracer.agent.tool_checks import CANCEL_MESSAGE
    from tracer.agent.tool_run import INTERRUPT_MESSAGE_FOR_TOOL_USE

    trace = traces["11-permission-reject-abort"]
    (decision,) = trace.of("permission")
    assert decision.decision == "reject" and decision.feedback is None
    rejected, cancelled = trace.of("mapping")
    assert rejected.block["content"] == REJECT_MESSAGE and rejected.block["is_error"] is True
    assert cancelled.block["content"] == CANCEL_MESSAGE  # the second call never started
    assert "<tool_use_error>" not in rejected.block["content"] + cancelled.block["content"]
    assert [r.error_kind for r in trace.of("tool_run")] == ["permission", "aborted"]
    assert trace.of("tool_start") == []
    assert trace.terminal.reason == "aborted_tools"
    assert len(trace.requests) == 1  # the model is not asked again
    last = trace.of("message")[-1]
    assert last.content == INTERRUPT_MESSAGE_FOR_TOOL_USE


def test_12_an_empty_result_becomes_a_sentence(traces: dict[str, Trace]) -> None:
    trace = traces["12-empty-output"]
    (mapped,) = trace.of("mapping")
    assert trace.tool_run(mapped.tool_use_id).output["stdout"] == ""
    assert mapped.block["content"] == "(Bash completed with no output)"
    assert mapped.empty_replaced is True and mapped.block["is_error"] is False
    sent = trace.requests[1]["messages"][-1]["content"][0]
    assert sent["content"] == "(Bash completed with no output)"


def test_13_needs_follow_up_ignores_stop_reason(traces: dict[str, Trace]) -> None:
    trace = traces["13-stop-reason-disagrees"]
    first, second = trace.of("follow_up")
    assert (first.stop_reason, len(first.tool_use_ids), first.needs_follow_up) == (
        "end_turn",
        1,
        True,
    )
    assert (second.stop_reason, second.tool_use_ids, second.needs_follow_up) == (
        "tool_use",
        [],
        False,
    )
    assert [e.stop_reason for e in trace.of("response")] == ["end_turn", "tool_use"]
    assert trace.terminal.reason == "completed"
