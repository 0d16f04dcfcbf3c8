"""The comparison's pure part (tracer.compare.beside, tracer.compare.render_beside): the cursor over
the rows, its moves, the doctor's findings on their rows, the summary and the lit lines."""

from __future__ import annotations

from dataclasses import dataclass

from replay_helpers import FIXTURES
from rich.text import Text

from tracer.compare.align import Row
from tracer.compare.beside import LISTED, Comparison, summary_text
from tracer.compare.render_beside import LIT_LINE, light_differences, side_text
from tracer.trace.reader import TraceReader
from tracer.view.render import render_step
from tracer.view.steps import StepIndex


@dataclass
class FakeFinding:
    """The doctor's Finding as the comparison reads it (1-based step, as the doctor counts)."""

    step: int
    rule: str = "malformed-result"
    severity: str = "error"

    def text(self, lang: str) -> str:
        return "块坏了" if lang == "zh" else "the block is broken"


ROWS = [
    Row(0, 0, 0, "session", "changed"),
    Row(1, 1, 1, "turn_start", "same"),
    Row(2, 2, 1, "mapping", "changed"),
    Row(3, 3, 1, "wrapping", "same"),
    Row(None, 4, 2, "response", "only_b"),
    Row(4, None, 2, "terminal", "only_a"),
]


def test_moves_stay_inside_the_rows() -> None:
    c = Comparison(ROWS)
    assert not c.step(-1) and c.row == 0
    assert c.step(1) and c.current == ROWS[1]
    assert c.go(99) and c.row == len(ROWS) - 1
    assert not c.step(1) and c.row == len(ROWS) - 1


def test_next_and_previous_difference_skip_the_rows_that_are_the_same() -> None:
    c = Comparison(ROWS)
    assert c.summary.differences == [0, 2, 4, 5]
    assert c.next_difference() and c.row == 2
    assert c.next_difference() and c.row == 4
    assert c.next_difference(forward=False) and c.row == 2
    c.go(5)
    assert not c.next_difference() and c.row == 5  # none after the last: stays
    c.go(0)
    assert not c.next_difference(forward=False) and c.row == 0
    assert c.next_difference(here=True) and c.row == 0  # leaving the summary: row 0 counts


def test_findings_sit_on_the_row_of_their_step_in_a_and_d_goes_round_them() -> None:
    # Doctor steps are 1-based: step 3 is A's step 2 (row 2), step 5 is A's step 4 (row 5).
    c = Comparison.of(ROWS, ("a", "b"), [FakeFinding(5), FakeFinding(3, "other", "warning")])
    assert [(f.row, f.finding.rule) for f in c.findings] == [(2, "other"), (5, "malformed-result")]
    assert c.next_finding() and c.row == 2
    assert [f.finding.rule for f in c.findings_here()] == ["other"]
    assert c.next_finding() and c.row == 5
    assert c.next_finding() and c.row == 2  # round to the first
    assert not Comparison(ROWS).next_finding()


def test_bs_findings_sit_on_the_row_of_their_step_in_b() -> None:
    # B's step 5 (1-based) is B's step 4: row 4, the response only B has.
    c = Comparison.of(ROWS, ("a", "b"), [FakeFinding(3)], [FakeFinding(5, "b-rule")])
    assert [(f.row, f.side, f.finding.rule) for f in c.findings] == [
        (2, 0, "malformed-result"),
        (4, 1, "b-rule"),
    ]
    text = summary_text(c, "en").plain
    assert "findings in A" in text and "findings in B" in text
    assert "error row 5  b-rule: the block is broken" in text.split("findings in B")[1]
    assert "乙的诊断结果" in summary_text(c, "zh").plain
    assert c.next_finding() and c.next_finding() and c.row == 4


def test_the_differing_side_is_lit_and_the_position_says_how_the_sides_compare() -> None:
    c = Comparison(ROWS)
    assert c.lit() == (True, True)  # changed: both
    c.go(1)
    assert c.lit() == (False, False)
    assert c.position("en") == "turn 1 · turn start · row 2/6 · the same"
    c.go(4)
    assert c.lit() == (False, True)  # only B has it
    assert c.position("zh").startswith("第2轮 · 第5/6行 · 只有乙有")
    c.go(5)
    assert c.lit() == (True, False)
    c.go(0)
    assert c.position("zh").startswith("准备 · 第1/6行 · 不同")


def test_the_summary_counts_lists_each_difference_by_row_and_the_findings() -> None:
    c = Comparison.of(ROWS, ("faults/x", "good"), [FakeFinding(3)])
    en = summary_text(c, "en").plain
    assert "A: faults/x" in en and "B: good" in en
    assert "2 steps the same, 2 different, 1 only in A, 1 only in B." in en
    assert "row 3  turn 1 · mapping · different" in en
    assert "row 5  turn 2 · response · only in B" in en
    assert "row 2" not in en.split("Differences")[1].split("doctor")[0]  # the same: not listed
    assert "error row 3  malformed-result: the block is broken" in en
    assert en.index("findings in A") < en.index("Differences")  # on the first screen, however many
    zh = summary_text(c, "zh").plain
    assert "甲：faults/x" in zh and "2步相同，2步不同，1步只有甲有，1步只有乙有。" in zh
    assert "第3行  malformed-result：块坏了" in zh
    assert "甲的诊断结果" in zh


def test_the_summary_of_two_equal_runs_says_so_and_a_long_list_is_cut() -> None:
    same = [Row(n, n, 1, "mapping", "same") for n in range(3)]
    assert "the same, step by step" in summary_text(Comparison(same), "en").plain
    many = [Row(n, n, 1, "mapping", "changed") for n in range(LISTED + 5)]
    text = summary_text(Comparison(many), "en").plain
    assert f"row {LISTED} " in text and f"row {LISTED + 1} " not in text
    assert f"{LISTED + 5} in all" in text


def test_only_the_lines_one_side_lacks_are_lit() -> None:
    a, b = (
        Text('{\n  "tool_use_id": (absent)\n  "content": x\n}'),
        Text('{\n  "tool_use_id": "toolu_1"\n  "content": x\n}'),
    )
    lit_a, lit_b = light_differences(a, b)

    def lit_lines(text: Text) -> list[str]:
        return [
            line.plain
            for line in text.split("\n")
            if any(str(span.style) == LIT_LINE for span in line.spans)
        ]

    assert lit_a.plain == a.plain and lit_b.plain == b.plain  # the words are untouched
    assert lit_lines(lit_a) == ['  "tool_use_id": (absent)']
    assert lit_lines(lit_b) == ['  "tool_use_id": "toolu_1"']


def test_turn_keys_go_to_a_turns_first_row_and_stage_keys_to_the_next_row_of_the_stage() -> None:
    c = Comparison(ROWS)  # turns 0 | 1 1 1 | 2 2
    assert c.next_turn() and c.row == 1
    assert c.next_turn() and c.row == 4
    assert not c.next_turn() and c.row == 4  # no later turn
    c.go(5)
    assert c.next_turn(forward=False) and c.row == 4  # this turn's first row
    assert c.next_turn(forward=False) and c.row == 1  # then the previous turn's
    assert c.next_turn(forward=False) and c.row == 0
    assert not c.next_turn(forward=False)
    assert c.next_stage("mapping") and c.row == 2
    assert c.next_stage("mapping") and c.row == 2  # the only one: round to it
    assert not c.next_stage("appending")  # neither run has one


def test_a_side_shows_no_key_of_the_replay_that_the_comparison_does_not_have() -> None:
    reader = TraceReader(FIXTURES / "03-read-calc.trace.jsonl")
    try:
        index = StepIndex(reader)
        mapping = next(s for s in range(len(index)) if index.stage(s) == "mapping")
        assert "b: jump here and back" in render_step(index, mapping, "en").plain  # the replay's
        side = side_text(index, mapping, "en").plain
        assert "b: jump" not in side and '"tool_use_id": "toolu_01fault_read_calc"' in side
        assert side_text(index, None, "zh").plain == "（这次执行没有这一步）"
    finally:
        reader.close()


def test_a_side_the_doctor_is_still_checking_is_said_in_the_summary() -> None:
    c = Comparison(ROWS, pending={1})
    assert "the doctor is checking" in summary_text(c, "en").plain
    assert "诊断中" in summary_text(c, "zh").plain
    c.place(1, [FakeFinding(5)])
    assert not c.pending and [f.row for f in c.findings] == [4]
    assert "checking" not in summary_text(c, "en").plain
