"""The views of the bundled recordings whose stories the main walk does not tell.

A fault's refused request and the request Claude Code 2.1.88 patches say what each is; a failed
command's raw output says what 2.1.88 keeps instead; the terminal step shows the message the loop
added last; an empty result replaced is not said to be persisted; the growth chart gives a
refused request no tokens.
"""

from __future__ import annotations

import pytest
from replay_helpers import view

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex


@pytest.mark.parametrize("fault", ["01-result-not-returned", "02-tool-use-id-mismatch"])
def test_the_refused_request_and_the_patched_one_say_what_each_is(fault: str) -> None:
    from tracer.files.paths import RECORDINGS_DIR

    index = StepIndex(TraceReader(RECORDINGS_DIR / "faults" / f"{fault}.trace.jsonl"))
    steps = {index.event(s).request_index: s for s in index.by_stage["resending"]}
    raw, patched = view(index, steps[2]), view(index, steps[3])
    assert "400 invalid_request_error" in raw and "the bare API's answer" in raw
    assert "Claude Code 2.1.88 never sends this" in raw
    assert "ensureToolResultPairing patched this request" in patched
    assert "[Tool result missing due to internal error]" in patched
    assert "Request 2 is the same history unpatched; the API refused it: 400" in patched
    zh = view(index, steps[3], "zh")
    assert "ensureToolResultPairing 在发出前修补了这次请求" in zh and "API 拒绝了它：400" in zh
    if fault.startswith("02"):
        assert "stripped" in patched and "删掉" in zh


def test_a_failed_commands_raw_output_says_what_2_1_88_keeps_instead() -> None:
    from tracer.files.paths import RECORDINGS_DIR

    index = StepIndex(TraceReader(RECORDINGS_DIR / "08-failing-command.trace.jsonl"))
    run = next(s for s in index.by_stage["tool_run"] if index.event(s).error_kind == "exit_code")
    wrap = next(s for s in index.by_stage["wrapping"] if index.event(s).error_kind == "exit_code")
    for step in (run, wrap):
        assert 'the string "Error: Exit code N …"' in view(index, step)
        assert "“Error: Exit code N …”" in view(index, step, "zh")
    ok = next(s for s in index.by_stage["tool_run"] if not index.event(s).error_kind)
    assert "Error: Exit code N" not in view(index, ok)


@pytest.mark.parametrize(
    "name, words",
    [
        ("11-permission-reject-abort", ["[Request interrupted by user for tool use]"]),
        ("05-max-turns", ['"type": "max_turns_reached"', '"maxTurns": 2', '"turnCount": 3']),
        (
            "faults/08-api-invariants",
            ["assistant: API Error: 400", "Claude Code 2.1.88 adds the same", "returns completed"],
        ),
    ],
)
def test_the_terminal_step_shows_the_message_the_loop_added_last(
    name: str, words: list[str]
) -> None:
    # The notes promise these messages; the terminal step is where a reader meets them.
    index = StepIndex(TraceReader(RECORDINGS_DIR / f"{name}.trace.jsonl"))
    text = view(index, len(index) - 1)
    for word in words:
        assert word in text, f"{word!r} missing from\n{text}"
    assert "循环返回前追加的最后一条消息" in view(index, len(index) - 1, "zh")


def test_an_empty_result_replaced_is_not_said_to_be_persisted() -> None:
    # 12-empty-output: the notice replaced an empty content; nothing was saved to a file.
    index = StepIndex(TraceReader(RECORDINGS_DIR / "12-empty-output.trace.jsonl"))
    step = index.by_stage["mapping"][0]
    assert index.event(step).empty_replaced and not index.event(step).persisted
    en, zh = view(index, step), view(index, step, "zh")
    assert "(the mapped content was empty)" in en and "before persisting" not in en
    assert "（翻译出的内容为空）" in zh and "存入文件之前" not in zh


def test_the_growth_chart_gives_a_refused_request_no_tokens() -> None:
    # faults/03: request 2 is refused (400) and request 3, the patched one, is answered. The
    # chart must not give request 2 the tokens of request 3's response.
    from tracer.view.context import request_history

    index = StepIndex(TraceReader(RECORDINGS_DIR / "faults" / "03-malformed-result.trace.jsonl"))
    last = index.by_stage["resending"][-1]
    points = {p.request_index: p.input_tokens for p in request_history(index, last)}
    assert points[2] is None
    assert points[1] is not None and points[3] is not None
