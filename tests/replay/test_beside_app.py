"""``tracer replay A --beside [B]`` with Pilot: the summary first, one key steps both runs, the
differences and the doctor's findings found by key, both languages; and its bad input on the
command line (one line, exit 2).

The pair is fault 03 and its good twin, fixed like the other replay fixtures
(``fixtures/03-malformed-result.trace.jsonl``, ``fixtures/03-read-calc.trace.jsonl``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replay_helpers import FIXTURES, drive
from textual.widgets import Static

from tracer.cli.main import main
from tracer.replay.beside_command import make_beside_app
from tracer.replay.widgets.beside_column import BesideColumn
from tracer.replay.widgets.beside_help import BesideHelp

FAULT = FIXTURES / "03-malformed-result.trace.jsonl"
TWIN = FIXTURES / "03-read-calc.trace.jsonl"


def beside_app(lang: str = "en") -> Any:
    return make_beside_app(FAULT, TWIN, lang=lang)


def text_of(app: Any, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


def column(app: Any, side: str) -> tuple[str, str]:
    """A column's title and its step's text."""
    widget = app.query_one(f"#side-{side}", BesideColumn)
    title = str(widget.query_one(".beside-title", Static).render())
    return title, str(widget.query_one(".beside-body", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (140, 42)], ids=["80x24", "140x42"])
def test_the_malformed_block_and_the_good_one_side_by_side(size: tuple[int, int]) -> None:
    app = beside_app()

    async def script(pilot: Any) -> None:
        summary = text_of(app, "#beside-summary-text")
        assert "How the two runs differ" in summary and "row 8   turn 1 · mapping" in summary
        assert not app.query_one("#beside-columns").display  # the summary comes first
        await pilot.press("n", "n")  # the session row, then the mapping
        assert app.beside.comparison.row == 7
        a_title, a_body = column(app, "a")
        b_title, b_body = column(app, "b")
        assert a_title.startswith("A · step 8/14") and b_title.startswith("B · step 8/16")
        assert '"tool_use_id": (absent' in a_body
        assert '"tool_use_id": "toolu_01fault_read_calc"' in b_body
        a, b = app.query_one("#side-a"), app.query_one("#side-b")
        assert a.region.y == b.region.y and a.region.right <= b.region.x  # side by side
        assert a.region.width >= size[0] // 2 - 1 and b.region.width >= size[0] // 2 - 1
        assert a.has_class("-lit") and b.has_class("-lit")
        position = text_of(app, "#beside-position")
        assert "row 8/16 · different" in position and "doctor, A: malformed-result" in position

    drive(app, script, size)


def test_one_key_steps_both_and_a_missing_step_is_said_in_both_languages() -> None:
    app = beside_app()

    async def script(pilot: Any) -> None:
        await pilot.press("right")  # leaves the summary at row 1
        assert app.beside.comparison.row == 0 and app.query_one("#beside-columns").display
        await pilot.press("right", "l")
        assert app.beside.comparison.row == 2
        assert column(app, "a")[0].startswith("A · step 3/14")
        assert column(app, "b")[0].startswith("B · step 3/16")
        await pilot.press("left", "h")
        assert app.beside.comparison.row == 0
        await pilot.press("end")
        await pilot.press("N", "N")  # back from the last row to the response only B got
        assert app.beside.comparison.current.change == "only_b"
        assert column(app, "a") == (
            "A · no step · 03-malformed-result",
            "(this run has no such step)",
        )
        assert not app.query_one("#side-a").has_class("-lit")
        assert app.query_one("#side-b").has_class("-lit")
        await pilot.press("t")
        assert column(app, "a")[1] == "（这次执行没有这一步）"
        assert column(app, "a")[0].startswith("甲 · 无此步")
        assert "只有乙有" in text_of(app, "#beside-position")
        await pilot.press("home")
        assert app.beside.comparison.row == 0
        await pilot.press("right_square_bracket", "1")  # turn 1, then its mapping (翻译)
        assert app.beside.comparison.current.stage == "mapping"
        assert "翻译（mapping）" in text_of(app, "#beside-position")
        await pilot.press("left_square_bracket")
        assert app.beside.comparison.row == 1  # turn 1's first row

    drive(app, script, (80, 24))


def test_d_jumps_from_the_summary_to_the_doctors_finding_and_s_comes_back() -> None:
    app = beside_app("zh")

    async def script(pilot: Any) -> None:
        summary = text_of(app, "#beside-summary-text")
        assert "甲的诊断结果" in summary and "第8行  malformed-result：" in summary
        await pilot.press("d")
        assert app.beside.comparison.row == 7  # the mapping step the doctor names
        assert "甲的诊断：malformed-result" in text_of(app, "#beside-position")
        await pilot.press("s")
        assert app.query_one("#beside-summary").display
        assert not app.query_one("#beside-columns").display
        await pilot.press("s")
        assert app.beside.comparison.row == 7  # the summary left the cursor where it was

    drive(app, script, (80, 24))


def test_the_doctors_findings_in_b_are_listed_and_found_too() -> None:
    app = make_beside_app(TWIN, FAULT, lang="en")  # the good run first: the fault is B

    async def script(pilot: Any) -> None:
        summary = text_of(app, "#beside-summary-text")
        assert "findings in B" in summary and "findings in A" not in summary
        await pilot.press("d")
        assert app.beside.comparison.current.stage == "mapping"
        assert "doctor, B: malformed-result" in text_of(app, "#beside-position")

    drive(app, script, (80, 24))


def test_help_opens_and_closes_and_q_quits() -> None:
    app = beside_app()

    async def script(pilot: Any) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, BesideHelp)
        await pilot.press("q")  # closes the help, not the app
        assert app.screen is app.beside and app.return_code is None
        await pilot.press("q")
        assert app.return_code == 0  # the app is closing

    drive(app, script, (80, 24))


def test_the_same_trace_beside_itself_has_no_difference() -> None:
    app = make_beside_app(FAULT, FAULT, lang="en")

    async def script(pilot: Any) -> None:
        assert "same, step by step" in text_of(app, "#beside-summary-text")
        await pilot.press("n")
        assert app.beside.comparison.row == 0

    drive(app, script, (80, 24))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["01-main-walk", "--beside"], "no good twin is bundled"),
        (["faults/06-loop-not-ending-repeat", "--beside"], "the loop is not broken"),
        (["01-main-walk", "--beside", "{bad}"], "not a tracer trace"),
        (["01-main-walk", "--beside", "{missing}"], "no such file"),
        (["01-main-walk", "--beside", "05-max-turns", "--step", "3"], "--step goes with one"),
        (["--beside", "05-max-turns"], "give TRACE"),
    ],
)
def test_bad_input_beside_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    bad = tmp_path / "bad.trace.jsonl"
    bad.write_text("this is not a trace\n", encoding="utf-8")
    filled = [a.format(bad=bad, missing=tmp_path / "missing.jsonl") for a in args]
    assert main(["replay", *filled, "--screenshot", str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err, err
    assert not (tmp_path / "x.svg").exists()


def test_a_bundled_fault_beside_nothing_is_compared_with_its_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "beside.svg"
    args = ["replay", "faults/03-malformed-result", "--beside", "--lang", "en"]
    assert main([*args, "--screenshot", str(out), "--size", "80x24"]) == 0
    svg = out.read_text(encoding="utf-8")
    assert "twins/03-read-calc" in svg and "faults/03-malformed-result" in svg


def test_a_big_traces_doctor_runs_after_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past NOW_LIMIT events the doctor checks a side in the background: the summary says so at
    first, and lists the finding once the check is done."""
    import tracer.replay.beside_command as beside_command

    monkeypatch.setattr(beside_command, "NOW_LIMIT", 0)
    app = make_beside_app(FAULT, TWIN, lang="en")
    assert app.beside.comparison.pending == {0, 1} and not app.beside.comparison.findings

    async def script(pilot: Any) -> None:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.beside.comparison.pending
        summary = text_of(app, "#beside-summary-text")
        assert "checking" not in summary and "row 8  malformed-result" in summary
        await pilot.press("d")
        assert app.beside.comparison.current.stage == "mapping"

    drive(app, script, (80, 24))
