"""Checkpoints as questions: each lands on the step that shows it, and its answer comes from the
trace (change the trace and the answer follows), never from the guide."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from replay_helpers import MAIN_TRACE

from tracer.chapter.guide import load_guide
from tracer.files.paths import resolve_trace
from tracer.tour.checkpoints import NotInTrace, build_question, landing_step
from tracer.trace.hooks import hook_lines
from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex

GUIDE = load_guide()
CHECKPOINTS = {c.id: c for c in GUIDE.checkpoints}


def _index(path: Path) -> StepIndex:
    return StepIndex(TraceReader(path))


def _question(checkpoint_id: str) -> tuple[Any, StepIndex]:
    checkpoint = CHECKPOINTS[checkpoint_id]
    index = _index(resolve_trace(checkpoint.scenario))
    return build_question(index, checkpoint), index


def test_the_guide_has_seven_checkpoints_and_each_asks_something() -> None:
    assert len(GUIDE.checkpoints) == 7
    for checkpoint in GUIDE.checkpoints:
        question, index = _question(checkpoint.id)
        assert index.stage(question.step) == checkpoint.stage
        assert checkpoint.turn is None or index.turn(question.step) == checkpoint.turn
        # Asked before the checkpoint's own step, revealed on or after it.
        assert question.ask < question.step <= question.land
        assert question.check(question.answer)
        if question.choices:
            assert question.answer in [c.value for c in question.choices]
            assert len(question.choices) >= 2
        assert checkpoint.question.zh and checkpoint.question.en


def test_checkpoints_land_on_steps_that_show_them() -> None:
    q, index = _question("result-translation")
    block = index.event(q.land).block
    assert set(block) == {"type", "content", "is_error", "tool_use_id"}
    q, index = _question("error-marking")
    block = index.event(q.land).block
    assert block["is_error"] is True and "<tool_use_error>" in str(block["content"])
    q, index = _question("feedback-injection")
    wrapping = index.event(q.land)
    permissions = [
        index.event(s)
        for s in range(q.land)
        if index.stage(s) == "permission" and index.event(s).tool_use_id == wrapping.tool_use_id
    ]
    assert wrapping.feedback and permissions[-1].decision == "approve"
    q, index = _question("message-wrapping")
    turn = index.turn(q.step)
    assert (
        sum(1 for s in range(len(index)) if index.turn(s) == turn and index.stage(s) == "wrapping")
        >= 2
    )
    q, index = _question("conversation-loop")
    assert index.event(q.land).needs_follow_up is False
    q, index = _question("turn-limit")
    assert index.event(q.land).exceeded is True


def test_answers_agree_with_what_the_trace_prints() -> None:
    q, index = _question("spread-append")
    lines = [x for x in hook_lines(index.reader) if x.startswith("[DEBUG] Loop turn:")]
    assert f"[DEBUG] Loop turn: 2 messages: {q.answer}" in lines and q.evidence in lines
    q, index = _question("conversation-loop")
    assert f"[DEBUG] needsFollowUp: {q.answer} tool_use blocks: 0" in list(hook_lines(index.reader))
    q, index = _question("message-wrapping")
    request = next(
        index.event(s) for s in range(q.land, len(index)) if index.stage(s) == "resending"
    )
    from tracer.trace.requests import rebuild_requests

    rebuilt = next(
        r for r in rebuild_requests(index.reader) if r.event.request_index == request.request_index
    )
    wire_roles = [m["role"] for m in rebuilt.body["messages"]]
    assert int(q.answer) == wire_roles.count("user")
    # The lesson: the turn wrapped more user messages than the API sees (they were merged).
    turn = index.turn(q.step)
    wrapped = sum(
        1 for s in range(len(index)) if index.turn(s) == turn and index.stage(s) == "wrapping"
    )
    assert int(q.answer) < 1 + wrapped


def _rewrite(source: Path, target: Path, change: Any) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines()
    target.write_text("\n".join(change(line) for line in lines) + "\n", encoding="utf-8")
    return target


def test_the_answer_follows_the_trace_not_the_guide(tmp_path: Path) -> None:
    # Change the second turn's message count in the trace: the loop_turn answer changes with it.
    def bump(line: str) -> str:
        event = json.loads(line)
        if event.get("kind") == "turn_start" and event.get("turn") == 2:
            event["message_count"] = 70
        return json.dumps(event)

    changed = _rewrite(MAIN_TRACE, tmp_path / "changed.trace.jsonl", bump)
    checkpoint = CHECKPOINTS["spread-append"]
    from dataclasses import replace

    checkpoint = replace(checkpoint, scenario="01-main-walk")
    assert build_question(_index(MAIN_TRACE), checkpoint).answer == "7"
    assert build_question(_index(changed), checkpoint).answer == "70"


def test_the_tool_use_id_answer_is_the_blocks_own(tmp_path: Path) -> None:
    renamed = _rewrite(
        MAIN_TRACE,
        tmp_path / "renamed.trace.jsonl",
        lambda line: line.replace("toolu_01205ad299e35628f949ad62", "toolu_renamed_for_this_test"),
    )
    question = build_question(_index(renamed), CHECKPOINTS["result-translation"])
    assert question.answer == "toolu_renamed_for_this_test"
    assert not question.check("toolu_01205ad299e35628f949ad62")
    assert {c.value for c in question.choices} > {question.answer}


def test_a_checkpoint_the_trace_cannot_show_says_so() -> None:
    from dataclasses import replace

    missing = replace(CHECKPOINTS["turn-limit"], turn=9)
    with pytest.raises(NotInTrace):
        landing_step(_index(MAIN_TRACE), missing)


def test_a_question_on_a_step_of_another_kind_names_the_step() -> None:
    # is_error reads a mapping step's block: a guide that asks it of a follow_up step is told
    # which step that is and what it holds, instead of a missing attribute.
    from dataclasses import replace

    wrong = replace(CHECKPOINTS["result-translation"], stage="follow_up", ask="is_error")
    index = _index(MAIN_TRACE)
    step = landing_step(index, wrong)
    with pytest.raises(TypeError, match=rf"^step {step + 1} is a follow_up record, not mapping$"):
        build_question(index, wrong)


def test_the_tool_use_id_of_another_step_of_the_call_is_its_own() -> None:
    from dataclasses import replace

    on_run = replace(CHECKPOINTS["result-translation"], stage="tool_run")
    mapped = build_question(_index(MAIN_TRACE), CHECKPOINTS["result-translation"])
    assert build_question(_index(MAIN_TRACE), on_run).answer == mapped.answer


# -- the reveal stands where the answer is, and the question does not give it away --------------


def _screen(index: StepIndex, step: int, lang: str) -> str:
    """What the replay shows on ``step``: the stage view and the debug lines printed so far."""
    from tracer.trace.hooks import shown_line
    from tracer.view.render import render_step

    reader = index.reader
    upto = index.positions[step + 1] if step + 1 < len(index) else len(reader)
    lines = [shown_line(reader[i], lang) for i in range(upto) if reader.kind_of(i) == "debug_hook"]
    return render_step(index, step, lang).plain + "\n" + "\n".join(lines)


def _shows(text: str, question: Any, lang: str) -> bool:
    """Whether ``text`` shows ``question``'s answer, as the replay prints it."""
    kind, answer = question.checkpoint.ask, question.answer
    if kind == "tool_use_id":
        return f'"tool_use_id": "{answer}"' in text
    if kind == "api_user_messages":  # the request, with every message and its role listed
        messages = ("API 消息数：" if lang == "zh" else "API messages: ") + question.evidence.split(
            ": "
        )[1].split(" ")[0]
        return messages in text
    if kind == "loop_turn":
        return f"messages: {answer}" in text
    if kind == "content_blocks":
        return text.count("tool_result →") + text.count("text ") >= int(answer)
    if kind == "is_error":
        return f'"is_error": {answer}' in text or (answer == "absent" and "undefined" in text)
    if kind == "needs_follow_up":
        return f"needsFollowUp = {answer}" in text
    if kind == "max_turns_stop":
        return "→  true" in text if answer == "stop" else "→  false" in text
    raise AssertionError(kind)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("checkpoint_id", sorted(CHECKPOINTS))
def test_the_reveal_lands_where_the_answer_shows(checkpoint_id: str, lang: str) -> None:
    question, index = _question(checkpoint_id)
    assert _shows(_screen(index, question.land, lang), question, lang), (
        checkpoint_id,
        question.land + 1,
    )


def test_the_wrapping_answer_is_on_the_request_not_on_the_wrapping_step() -> None:
    q, index = _question("message-wrapping")
    assert index.stage(q.step) == "wrapping" and index.stage(q.land) == "resending"
    assert "提示词也算" in q.checkpoint.question.zh and "prompt" in q.checkpoint.question.en


def test_the_step_asked_on_does_not_give_the_answer_away() -> None:
    q, index = _question("error-marking")
    asked = _screen(index, q.ask, "zh")
    assert "出错" not in asked and "is_error" not in asked
    assert all(index.stage(s) != "tool_run" for s in range(q.ask + 1) if index.turn(s) == 1)
    q, index = _question("spread-append")
    assert index.stage(q.ask) != "appending" and index.stage(q.land) == "turn_start"


def test_the_replay_marks_a_checkpoint_where_the_tour_reveals_it() -> None:
    from tracer.tour.checkpoints import answer_step

    for checkpoint_id in CHECKPOINTS:
        question, index = _question(checkpoint_id)
        assert answer_step(index, question.checkpoint) == question.land
