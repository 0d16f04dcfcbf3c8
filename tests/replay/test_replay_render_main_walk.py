"""Each stage's view of the main walk, as text, in both languages; what it folds; what search finds.

The main walk covers every step kind: each stage's view shows what the step produced and what it
changed; a resend folds the prefix it shares with the request before and lights its tail and the
cache breakpoint; the Chinese views speak Chinese. Output too long for a screen (a megabyte) is
folded, with a note in the reader's language; search credits each hit to the step that shows
it, across newlines and quotes, and wraps both ways; the raw view writes what ``json.dumps``
writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_helpers import MAIN_TRACE, view

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.reader import TraceReader
from tracer.view.cursor import locate
from tracer.view.fold import MAX_LINES, fold
from tracer.view.render import render_step
from tracer.view.search import next_match, search_steps
from tracer.view.steps import StepIndex


@pytest.fixture
def index() -> StepIndex:
    return StepIndex(TraceReader(MAIN_TRACE))


@pytest.mark.parametrize(
    "stage, words",
    [
        ("session", ["claude-sonnet-5-5", "Bash, Read, Edit", "max_turns: 10", "tests started"]),
        ("turn_start", ["state.messages: 3"]),
        ("resending", ["request 1", "bytes: 3,235", "1. user", "new"]),
        (
            "response",
            [
                "stop_reason: tool_use",
                "input_tokens 809",
                "3 internal assistant messages",
                "tool_use Bash id=toolu_01205ad299e35628f949ad62",
            ],
        ),
        ("follow_up", ["needsFollowUp = true", "tool_use blocks: 1", "git status"]),
        ("permission", ["decision: allow", "source: rule", "Bash(git status:*)"]),
        ("tool_run", ["stdout:", "modified:   calc.py", "exit_code: 0", "duration: 3 ms"]),
        (
            "mapping",
            [
                '"type": "tool_result"',
                '"is_error": false',
                "content length: 266",
                "⇓",
                "toolu_01205ad299e35628f949ad62",
            ],
        ),
        (
            "wrapping",
            [
                "create_user_message",
                "6b2c4754-34ae-532e-830a-b9a0fd7ae842",
                '"source_tool_assistant_uuid": "829d34bb',
                "↳ tool_use Bash",
                "tool_use_result",
            ],
        ),
        ("appending", ["messages: 3 → 7", "API: 1 → 3", "1–3  unchanged", "7  user"]),
        (
            "max_turns_check",
            ["next_turn_count (2) > max_turns (10)", "go on: the next state is built"],
        ),
        ("terminal", ["reason: completed", "turn_count: 4", "messages: 17"]),
    ],
)
def test_every_stage_view_shows_what_the_step_produced(
    index: StepIndex, stage: str, words: list[str]
) -> None:
    text = view(index, locate(index, stage=stage))
    for word in words:
        assert word in text, f"{stage}: {word!r} missing from\n{text}"


def test_resending_folds_the_shared_prefix_and_lights_the_tail(index: StepIndex) -> None:
    text = view(index, locate(index, turn=3, stage="resending"))
    assert "same 3 messages as request 2 (folded; o: unfold)" in text
    assert "4. assistant" in text and "5. user" in text
    assert "1. user" not in text  # the prefix is folded, not repeated
    assert "3,235 → 4,821" in text and "809 → 1206" in text  # growth over all requests so far
    zh = view(index, locate(index, turn=3, stage="resending"), "zh")
    assert "与第2次请求相同的3条消息（已折叠，按 o 展开）" in zh


def test_resending_names_the_cache_breakpoint_in_both_languages(index: StepIndex) -> None:
    fresh = StepIndex(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
    step = locate(fresh, turn=3, stage="resending")
    text = view(fresh, step)
    assert "cache breakpoint: the last block of message 5 (⚑)" in text
    assert text.count("⚑ cache_control") == 1  # on the newest block, the last in the list
    assert text.index("5. user") < text.index("⚑ cache_control") < text.index("\n]\n")
    assert "may be read from the cache next time" in text
    zh = view(fresh, step, "zh")
    assert "缓存断点：第5条消息的最后一个块（⚑）" in zh and "下一次请求可以从缓存读取" in zh
    # A trace recorded before tracer placed the breakpoint shows none.
    assert "⚑" not in view(index, locate(index, turn=3, stage="resending"))


def test_read_results_have_no_is_error_field(index: StepIndex) -> None:
    text = view(index, locate(index, turn=3, stage="mapping"))
    assert "absent: prints as undefined" in text


@pytest.mark.parametrize(
    "stage, zh_words",
    [
        ("mapping", ["翻译（mapping）", "翻译成 tool_result 块"]),
        ("appending", ["追加", "未变（已折叠，按 o 展开）"]),
        ("response", ["AI 回复", "条内部 assistant 消息"]),
    ],
)
def test_views_speak_chinese(index: StepIndex, stage: str, zh_words: list[str]) -> None:
    text = view(index, locate(index, stage=stage), "zh")
    for word in zh_words:
        assert word in text


def test_fold_cuts_a_megabyte_to_a_screenful() -> None:
    big = "\n".join(f"line {n} " + "x" * 90 for n in range(12_000))
    shown, note = fold(big)
    assert shown.count("\n") < MAX_LINES
    assert note is not None and f"of {len(big)} chars" in note
    assert fold("short") == ("short", None)


def test_the_fold_note_speaks_chinese() -> None:
    big = "\n".join(f"line {n} " + "x" * 90 for n in range(12_000))
    _shown, note = fold(big, lang="zh")
    assert note is not None and note.startswith("… 已折叠：")
    assert f"{big.count(chr(10)) + 1}行中的{MAX_LINES}行" in note
    assert "（按 o 展开）" in note and "folded" not in note and "unfold" not in note
    index = StepIndex(TraceReader(RECORDINGS_DIR / "06-large-output.trace.jsonl"))
    run = locate(index, turn=1, stage="tool_run")
    zh, en = render_step(index, run, "zh").plain, render_step(index, run, "en").plain
    assert "… 已折叠：" in zh and "folded:" not in zh
    assert "… folded: showing" in en and "已折叠" not in en


def _with_huge_output(tmp_path: Path) -> Path:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines()
    huge = "y" * 1_000_000
    out = []
    for line in lines:
        data = json.loads(line)
        if data.get("kind") == "tool_run" and data["turn"] == 1:
            data["output"]["stdout"] = huge
        if data.get("kind") == "mapping" and data["turn"] == 1:
            data["block"]["content"] = huge
        out.append(json.dumps(data, ensure_ascii=False))
    path = tmp_path / "huge.trace.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def test_a_megabyte_of_output_is_shown_folded(tmp_path: Path) -> None:
    index = StepIndex(TraceReader(_with_huge_output(tmp_path)))
    for stage in ("tool_run", "mapping"):
        text = view(index, locate(index, turn=1, stage=stage))
        assert "folded" in text
        assert len(text) < 20_000


def test_search_credits_each_hit_to_the_step_that_shows_it(index: StepIndex) -> None:
    # "git diff" is the tool input (response, follow_up, permission rule, tool run) of turn 2.
    hits = search_steps(index, "git diff")
    assert locate(index, turn=2, stage="response") in hits
    assert locate(index, turn=2, stage="tool_run") in hits
    assert locate(index, turn=1, stage="mapping") not in hits
    # The file Read returned is on screen where the tool ran and where its block was made.
    hits = search_steps(index, "return add(*values")
    assert locate(index, turn=3, stage="tool_run") in hits
    assert locate(index, turn=3, stage="mapping") in hits
    assert search_steps(index, "RETURN A - B") == search_steps(index, "return a - b")
    assert search_steps(index, "no such words anywhere") == []
    assert search_steps(index, "") == []


def test_search_finds_text_that_holds_newlines_and_quotes(index: StepIndex) -> None:
    assert search_steps(index, 'return the sum of a and b."""\n    return a - b')


def test_next_match_wraps_both_ways() -> None:
    assert next_match([3, 8, 20], 8) == 20
    assert next_match([3, 8, 20], 20) == 3
    assert next_match([3, 8, 20], 8, forward=False) == 3
    assert next_match([3, 8, 20], 3, forward=False) == 20
    assert next_match([], 5) is None


def test_pretty_json_writes_what_json_dumps_writes() -> None:
    import datetime
    from decimal import Decimal

    from tracer.view.pretty_json import pretty_json
    from tracer.view.raw import step_records

    index = StepIndex(TraceReader(MAIN_TRACE))
    odd = {
        "numbers": [0, -1, 2**70, 1.5, -0.0, 1e300, float("nan"), float("inf"), -float("inf")],
        "words": ["", "é 中文", '"\\\n\t\x00\u2028', {"k": ()}, [], {}],
        "flags": (True, False, None),
        "not json": [datetime.date(2026, 5, 15), Decimal("1.5")],
        3: "a key that is not a string",
    }
    values = [odd, odd["numbers"], "plain", 7, None, []]
    values += [step_records(index, step) for step in range(len(index))]
    for value in values:
        assert pretty_json(value) == json.dumps(value, ensure_ascii=False, indent=2, default=str)
