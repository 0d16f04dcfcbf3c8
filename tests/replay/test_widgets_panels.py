"""The panels and the frame around them, each alone: findings, side panels, zoom, help, notice.

The findings panel runs the doctor and moves with j and k, scrolls a finding taller than itself
with the arrows, and keeps its home, end and page keys and a full-screen zoom at 80x24. The frame
folds its side panels when the terminal shrinks and captions a zoomed panel, giving its subtitle
back; the help scrolls under its pinned close line; the notice says a torn line, then an
unfinished session, then hides.
"""

from __future__ import annotations

import asyncio
from typing import Any

from replay_helpers import FAULT_TRACE
from widget_helpers import Harness, ScreenHarness, heard, main_index, run

from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.screens import HelpScreen
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.trace.reader import TraceReader
from tracer.view.diagnose import DoctorWatch
from tracer.view.steps import StepIndex


def test_findings_panel_runs_the_doctor_and_moves_with_j_k() -> None:
    panel = FindingsPanel(DoctorWatch(True, jump=True, following=False), id="findings")
    index = StepIndex(TraceReader(FAULT_TRACE))

    async def script(pilot: Any, app: Harness) -> None:
        panel.check(index)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert panel.diagnosis is not None and panel.diagnosis.findings
        panel.show(panel.diagnosis, "en")
        await pilot.pause()
        panel.focus()
        await pilot.press("enter")

    app = run(panel, script)
    diagnosed = heard(app, FindingsPanel.Diagnosed)
    assert len(diagnosed) == 1
    chosen = heard(app, FindingsPanel.Selected)
    assert chosen and chosen[0].step == diagnosed[0].diagnosis.first_step


def test_the_last_finding_scrolls_with_the_arrow_at_80x24() -> None:
    panel = FindingsPanel(DoctorWatch(True, jump=True, following=False), id="findings")
    panel.styles.height = 4  # a finding taller than the panel, as at 80x24
    index = StepIndex(TraceReader(FAULT_TRACE))
    seen: list[float] = []

    async def script(pilot: Any, app: Harness) -> None:
        panel.check(index)
        await app.workers.wait_for_complete()
        panel.show(panel.diagnosis, "zh")
        await pilot.pause()
        panel.highlighted = panel.option_count - 1
        panel.scroll_home(animate=False)
        await pilot.pause()
        seen.append(panel.scroll_y)
        await pilot.press("down", "j")
        seen.append(panel.scroll_y)
        await pilot.press("k")
        seen.append(panel.scroll_y)

    run(panel, script, size=(60, 12))
    assert seen[0] == 0 and seen[1] > seen[0] and seen[2] < seen[1]


def test_findings_panel_home_end_page_keys_and_a_full_size_zoom_at_80x24() -> None:
    from replay_helpers import drive, make_app

    from tracer.files.paths import resolve_trace

    app = make_app(resolve_trace("faults/03-malformed-result"), doctor=True)
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        await pilot.pause()
        panel = app.replay.query_one(FindingsPanel)
        seen["focused"] = app.focused is panel
        seen["scrollable"] = panel.max_scroll_y > 0  # one finding, taller than the panel
        await pilot.press("end")
        await pilot.pause()
        seen["end"] = (panel.scroll_y, panel.max_scroll_y)
        await pilot.press("home")
        await pilot.pause()
        seen["home"] = panel.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        seen["pagedown"] = panel.scroll_y
        await pilot.press("z")
        await pilot.pause()
        seen["zoomed"] = (app.screen.maximized is panel, panel.region.height)

    drive(app, script, size=(80, 24))
    assert seen["focused"] and seen["scrollable"]
    assert seen["end"][0] == seen["end"][1] > 0
    assert seen["home"] == 0
    assert seen["pagedown"] > 0
    assert seen["zoomed"] == (True, 24)  # the whole screen, not its usual third


def test_the_frame_folds_its_side_panels_when_the_terminal_shrinks() -> None:
    from textual.containers import Vertical

    from tracer.replay.widgets.chapter_column import ChapterColumn
    from tracer.replay.widgets.debug_console import DebugConsole

    index = main_index()
    frame = Frame(
        Timeline(index),
        Vertical(StageView(id="stage"), DebugConsole(id="debug"), id="centre"),
        ChapterColumn(None, None, id="chapter"),
        id="main",
    )
    seen: list[tuple[bool, bool, bool]] = []

    def panels() -> tuple[bool, bool, bool]:
        return (frame.shown("timeline"), frame.shown("chapter"), frame.shown("debug"))

    async def script(pilot: Any, app: Harness) -> None:
        seen.append(panels())
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        seen.append(panels())
        frame.action_toggle_panel("chapter")  # c at 80 columns: the chapter, a tab beside the step
        seen.append(panels())
        frame.action_toggle_panel("timeline")  # then T: the newest wish wins, one side panel
        seen.append(panels())

    run(frame, script, size=(140, 42))
    assert seen == [
        (True, True, True),
        (False, False, False),
        (False, True, False),
        (True, False, False),
    ]


def test_frame_zoom_captions_the_panel_and_gives_its_subtitle_back() -> None:
    panel = StageView(id="stage")
    frame = Frame(panel, id="main")

    async def script(pilot: Any, app: Harness) -> None:
        panel.border_subtitle = "main-walk"
        frame.caption = "turn 2 · step 21/36 · z: back"
        frame.toggle_zoom(panel)
        await pilot.pause()
        assert app.screen.maximized is panel and panel.has_class("-zoomed")
        assert panel.border_subtitle == "turn 2 · step 21/36 · z: back"
        frame.toggle_zoom(panel)
        await pilot.pause()
        assert app.screen.maximized is None and not panel.has_class("-zoomed")
        assert panel.border_subtitle == "main-walk"

    run(frame, script)


def test_help_scrolls_under_its_pinned_close_line_at_80x24() -> None:
    screen = HelpScreen("zh")
    seen: dict[str, Any] = {}

    async def main() -> None:
        app = ScreenHarness(screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            body = screen.query_one("#help-body")
            close = screen.query_one("#help-close")
            assert body.max_scroll_y > 0  # more keys than rows: the list scrolls
            await pilot.press("j", "j", "j")
            seen["scrolled"] = body.scroll_y
            seen["close"] = close.region
            seen["screen"] = app.screen.region

    asyncio.run(main())
    assert seen["scrolled"] > 0
    assert seen["screen"].contains_region(seen["close"])  # the close line never leaves


def test_notice_says_a_torn_line_then_an_unfinished_session_then_hides() -> None:
    from tracer.replay.widgets.notice import Notice

    notice = Notice(id="notice")

    async def script(pilot: Any, app: Harness) -> None:
        assert not notice.has_class("shown")
        notice.show(12, False, 7, "en")  # torn wins over incomplete: it says where
        await pilot.pause()
        text = str(notice.render())
        assert notice.has_class("shown") and "12" in text and "7" in text
        notice.show(None, False, 7, "zh")
        await pilot.pause()
        assert "terminal" in str(notice.render()) and "12" not in str(notice.render())
        notice.show(None, True, 7, "en")
        await pilot.pause()
        assert not notice.has_class("shown") and str(notice.render()) == ""

    run(notice, script)
