"""The doctor inside the replay: markers on the timeline, the findings panel (``d``), jumping to
a finding, ``--doctor`` opening at the first one, and the doctor run in the background."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from replay_helpers import FAULT_TRACE, MAIN_TRACE, drive, make_app, visible_text
from test_replay_follow import wait_for

from tracer.doctor import run_doctor
from tracer.files.paths import RECORDINGS_DIR, ROOT
from tracer.replay.app import ReplayApp
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.timeline import Timeline
from tracer.trace.reader import TraceReader
from tracer.view import diagnose as diagnose_module
from tracer.view.diagnose import Diagnosis, marks_of, plan, step_of

FAULTS = sorted((RECORDINGS_DIR / "faults").glob("*.trace.jsonl"))
MARKS = ("●", "▲")


def timeline_lines(app: ReplayApp) -> list[str]:
    """The timeline as drawn, one string per row."""
    timeline = app.query_one(Timeline)
    return [
        "".join(segment.text for segment in timeline.render_line(y))
        for y in range(timeline.content_size.height)
    ]


def panel_text(app: ReplayApp) -> str:
    panel = app.query_one(FindingsPanel)
    return "\n".join(str(option.prompt) for option in panel.options)


def notifications(app: ReplayApp) -> list[str]:
    return [n.message for n in app._notifications]


# -- pure parts ----------------------------------------------------------------------------------


class _F:
    def __init__(self, step: int, severity: str) -> None:
        self.step, self.severity = step, severity


def test_marks_keep_the_worst_severity_of_a_step_and_count_from_zero() -> None:
    assert marks_of((_F(3, "warning"), _F(3, "error"), _F(5, "warning"))) == {
        2: "error",
        4: "warning",
    }
    assert step_of(_F(0, "error")) == 0  # "before the first step" shows at the first one


def test_plan_checks_small_traces_now_and_huge_ones_only_on_request() -> None:
    assert plan(100, False) == "now"
    assert plan(diagnose_module.NOW_LIMIT + 1, False) == "background"
    assert plan(diagnose_module.AUTO_LIMIT + 1, False) == "skip"
    assert plan(diagnose_module.AUTO_LIMIT + 1, True) == "background"


# -- markers -------------------------------------------------------------------------------------


def test_a_finding_is_marked_on_its_step_and_on_its_closed_turn() -> None:
    app = make_app(FAULT_TRACE)  # result-not-returned at step 16 (turn 2)

    async def script(pilot: Any) -> None:
        assert app.query_one(Timeline).marks == {15: "error"}
        heading = next(line for line in timeline_lines(app) if "turn 2" in line)
        assert "●" in heading  # turn 2 is closed while we are in the set-up
        await pilot.press("greater_than_sign")
        lines = timeline_lines(app)
        row = next(n for n, line in enumerate(lines) if " 16 " in line)
        assert lines[row].startswith("●")
        others = lines[:row] + lines[row + 1 :]
        assert not any(mark in line for line in others for mark in MARKS)

    drive(app, script)


def test_a_clean_recording_shows_no_markers() -> None:
    app = make_app(MAIN_TRACE)

    async def script(pilot: Any) -> None:
        assert app.replay.diagnosis is not None and app.replay.diagnosis.findings == ()
        for _ in range(4):
            assert not any(mark in line for line in timeline_lines(app) for mark in MARKS)
            await pilot.press("]")

    drive(app, script)


# -- the panel -----------------------------------------------------------------------------------


def test_d_opens_and_closes_the_findings_panel() -> None:
    app = make_app(FAULT_TRACE)

    async def script(pilot: Any) -> None:
        panel = app.query_one(FindingsPanel)
        assert not panel.display
        await pilot.press("d")
        assert panel.display and app.focused is panel
        text = panel_text(app)
        assert "result-not-returned" in text and "step 16 · turn 2" in text
        assert "error" in text and "toolu_01fault_dropped_diff" in text
        assert "check: " in text
        await pilot.press("right")  # the arrows still step through the trace
        assert app.replay.step == 1
        await pilot.press("d")
        assert not panel.display and app.focused is app.query_one("#stage")

    drive(app, script)


def test_the_panel_speaks_the_current_language() -> None:
    app = make_app(FAULT_TRACE, lang="zh")
    hint = run_doctor(TraceReader(FAULT_TRACE))[0].hint

    async def script(pilot: Any) -> None:
        await pilot.press("d")
        text = panel_text(app)
        assert "错误" in text and "第16步 · 第2轮" in text
        assert hint["zh"] in text
        await pilot.press("t")
        assert "step 16 · turn 2" in panel_text(app) and hint["en"] in panel_text(app)

    drive(app, script)


def test_enter_on_a_finding_jumps_to_its_step() -> None:
    app = make_app(FAULT_TRACE)

    async def script(pilot: Any) -> None:
        await pilot.press("d", "enter")
        assert app.replay.step == 15
        assert "step 16/17" in visible_text(app, "#position")

    drive(app, script)


def test_clicking_a_finding_jumps_to_its_step() -> None:
    app = make_app(FAULT_TRACE, step=3)

    async def script(pilot: Any) -> None:
        await pilot.press("d")
        await pilot.click(FindingsPanel, offset=(4, 2))  # inside the border, on the first row
        await pilot.pause()
        assert app.replay.step == 15

    drive(app, script)


def test_escape_closes_the_panel() -> None:
    app = make_app(FAULT_TRACE)

    async def script(pilot: Any) -> None:
        await pilot.press("d", "escape")
        assert not app.query_one(FindingsPanel).display and app.focused is app.query_one("#stage")

    drive(app, script)


def test_a_trace_the_doctor_cannot_follow_still_opens(tmp_path: Path) -> None:
    # Without the first message, request 1 names a message the trace does not hold.
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    first_message = next(n for n, line in enumerate(lines) if '"kind":"message"' in line)
    path = tmp_path / "holey.trace.jsonl"
    path.write_text("".join(lines[:first_message] + lines[first_message + 1 :]), encoding="utf-8")
    app = make_app(path, doctor=True)

    async def script(pilot: Any) -> None:
        assert app.replay.step == 0
        await pilot.press("d")
        assert "the doctor cannot check this trace" in panel_text(app)
        assert any("cannot check" in n for n in notifications(app))

    drive(app, script)


# -- --doctor ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FAULTS, ids=lambda p: p.name.split(".")[0])
def test_doctor_opens_at_the_first_finding(path: Path) -> None:
    first = run_doctor(TraceReader(path))[0]
    app = make_app(path, doctor=True)

    async def script(pilot: Any) -> None:
        assert app.replay.step == first.step - 1
        assert f"step {first.step}/" in visible_text(app, "#position")
        assert app.query_one(FindingsPanel).display
        assert first.rule in panel_text(app)

    drive(app, script)


def test_doctor_without_findings_opens_at_step_1_and_says_so() -> None:
    app = make_app(MAIN_TRACE, doctor=True)

    async def script(pilot: Any) -> None:
        # The check may finish after the first frame (a worker): wait for it, not for a clock.
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.replay.step == 0
        assert "doctor: no findings" in notifications(app)
        assert not app.query_one(FindingsPanel).display

    drive(app, script)


def test_an_explicit_step_wins_over_doctor() -> None:
    app = make_app(FAULT_TRACE, step=4, doctor=True)

    async def script(pilot: Any) -> None:
        assert app.replay.step == 4
        assert app.query_one(FindingsPanel).display

    drive(app, script)


def test_a_bigger_trace_is_checked_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnose_module, "NOW_LIMIT", 0)  # every trace counts as big
    app = make_app(FAULT_TRACE, doctor=True)

    async def script(pilot: Any) -> None:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.query_one(Timeline).marks == {15: "error"}
        assert app.replay.step == 15  # the reader had not moved, so the app went to the finding

    drive(app, script)


def test_a_huge_trace_is_checked_when_the_panel_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnose_module, "NOW_LIMIT", 0)
    monkeypatch.setattr(diagnose_module, "AUTO_LIMIT", 0)
    app = make_app(FAULT_TRACE)

    async def script(pilot: Any) -> None:
        await app.workers.wait_for_complete()
        assert app.replay.diagnosis is None and app.query_one(Timeline).marks == {}
        await pilot.press("d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.query_one(Timeline).marks == {15: "error"}
        assert "result-not-returned" in panel_text(app)

    drive(app, script)


def test_a_followed_trace_is_checked_again_when_it_ends(tmp_path: Path) -> None:
    lines = FAULT_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "live.trace.jsonl"
    path.write_text("".join(lines[:10]), encoding="utf-8")
    app = make_app(path, follow=True, doctor=True)

    async def script(pilot: Any) -> None:
        assert app.query_one(Timeline).marks == {}
        assert notifications(app) == []  # no verdict on half a session
        with path.open("a", encoding="utf-8") as out:
            out.writelines(lines[10:])
        assert await wait_for(lambda: app.query_one(Timeline).marks == {15: "error"}, pilot)
        assert app.replay.step == 15  # --doctor: now that it has ended, go to the first finding

    drive(app, script)


def test_a_given_diagnosis_is_used_as_is() -> None:
    app = make_app(FAULT_TRACE, diagnosis=Diagnosis())

    async def script(pilot: Any) -> None:
        assert app.query_one(Timeline).marks == {}

    drive(app, script)


# -- the command line ----------------------------------------------------------------------------


def test_doctor_from_the_command_line(tracer_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "doctor.svg"
    proc = tracer_cli(
        "replay", str(FAULT_TRACE), "--doctor", "--lang", "en", "--screenshot", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text(encoding="utf-8").replace("&#160;", " ")
    assert "step 16/17" in svg and "result-not-returned" in svg


def test_replay_help_imports_neither_anthropic_nor_textual() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tracer", "replay", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--doctor" in proc.stdout
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "tracer.cli.main" in modules, "importtime output was not parsed"
    heavy = sorted(m for m in modules if m.split(".")[0] in ("anthropic", "textual"))
    assert heavy == [], heavy[:3]
