"""Each replay widget's keys, on the widget alone: a tiny App mounts only that widget (or
screen), Pilot presses its keys, and the test reads the widget's state and the messages it
posted. None of this needs the replay app, which is the point of widgets that own their keys."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from replay_helpers import FAULT_TRACE, MAIN_TRACE
from rich.text import Text
from textual.app import App, ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.screens import HelpScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.trace.reader import TraceReader
from tracer.view.cursor import locate
from tracer.view.diagnose import DoctorWatch
from tracer.view.steps import StepIndex


class Harness(App[None]):
    """Mounts one widget and keeps every message that reaches the app."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.heard: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_mount(self) -> None:
        self.widget.focus()

    def _on_message(self, message: Message) -> None:
        self.heard.append(message)
        return super()._on_message(message)  # type: ignore[func-returns-value]


def run(
    widget: Widget, script: Callable[[Any, Harness], Awaitable[None]], size=(80, 24)
) -> Harness:
    app = Harness(widget)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot, app)

    asyncio.run(main())
    return app


def heard(app: Harness, kind: type[Message]) -> list[Any]:
    return [m for m in app.heard if isinstance(m, kind)]


def main_index() -> StepIndex:
    return StepIndex(TraceReader(MAIN_TRACE))


# -- the step view -------------------------------------------------------------------------------


def test_stage_view_o_unfolds_and_r_keeps_the_unfold_underneath() -> None:
    index = main_index()
    view = StageView(id="stage")
    step = locate(index, turn=2, stage="appending")

    async def script(pilot: Any, app: Harness) -> None:
        view.show_step(index, step, "en")
        folded = view.text.plain
        assert view.mode == "folded" and "unfold" in folded
        await pilot.press("o")
        assert view.mode == "unfolded" and view.text.plain != folded
        unfolded = view.text.plain
        await pilot.press("r")
        assert view.mode == "raw" and view.text.plain.lstrip().startswith("{")
        await pilot.press("r")  # back from raw: still unfolded, as the reader left it
        assert view.mode == "unfolded" and view.text.plain == unfolded
        await pilot.press("o")
        assert view.mode == "folded"
        view.show_step(index, step + 1, "en")  # a new step opens folded
        assert view.mode == "folded"

    app = run(view, script)
    assert len(heard(app, StageView.ModeChanged)) == 4


def test_stage_view_b_jumps_to_the_block_and_back() -> None:
    index = main_index()
    view = StageView(id="stage")

    async def script(pilot: Any, app: Harness) -> None:
        view.show_step(index, locate(index, turn=2, stage="mapping"), "en")
        await pilot.pause()
        await pilot.press("b")
        assert view.top > 0 and "⇓" in view.plain_lines()[view.top]
        await pilot.press("b")
        assert view.top == 0

    run(view, script, size=(80, 16))


# -- a pager (the chapter panel, the debug console) ----------------------------------------------


def test_pager_scrolls_with_j_k_and_the_arrows() -> None:
    pager = Pager("chapter")
    pager.can_focus = True

    async def script(pilot: Any, app: Harness) -> None:
        pager.show(Text("\n".join(f"line {n}" for n in range(100))))
        await pilot.pause()
        await pilot.press("j", "j", "down")
        assert pager.top == 3
        await pilot.press("k")
        assert pager.top == 2
        await pilot.press("end")
        assert pager.plain_lines()[-1] == "line 99" and pager.top > 50

    run(pager, script)


# -- the timeline --------------------------------------------------------------------------------


def test_timeline_j_k_say_which_step_was_chosen() -> None:
    index = main_index()
    timeline = Timeline(index)

    async def script(pilot: Any, app: Harness) -> None:
        timeline.step = 5  # (as the screen's cursor, bound, sets it)
        await pilot.press("j", "j", "k")

    app = run(timeline, script)
    assert [m.step for m in heard(app, Timeline.Selected)] == [6, 6, 4]


# -- the search bar ------------------------------------------------------------------------------


def test_search_bar_finds_counts_and_clears() -> None:
    index = main_index()
    bar = SearchBar(index, id="search-bar")

    async def script(pilot: Any, app: Harness) -> None:
        bar.action_open()
        await pilot.press(*"git diff", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert bar.matches and bar.active and bar.lighter() is not None
        first = bar.matches[0]
        bar.show_count(first)
        assert f"match 1/{len(bar.matches)}" in str(bar.query_one("#search-count").render())
        bar.show_count(first + 1 if first + 1 not in bar.matches else first)
        assert bar.clear()
        assert not bar.active and bar.matches == [] and bar.lighter() is None
        assert not bar.clear()  # nothing left to clear

    app = run(bar, script)
    assert heard(app, SearchBar.Found) and len(heard(app, SearchBar.Cleared)) == 1


def test_escape_in_the_search_box_keeps_the_last_search() -> None:
    bar = SearchBar(main_index(), id="search-bar")

    async def script(pilot: Any, app: Harness) -> None:
        bar.action_open()
        await pilot.press(*"turn", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        found = list(bar.matches)
        bar.action_open()
        await pilot.press("x", "escape")  # a new query abandoned: the last one stays
        assert bar.matches == found and bar.query_text == "turn" and bar.active

    app = run(bar, script)
    assert len(heard(app, SearchBar.Done)) == 2


def test_the_counter_follows_the_cursor_between_hits() -> None:
    from tracer.view import search

    assert search.position([3, 7, 12], 7) == (2, True)
    assert search.position([3, 7, 12], 9) == (2, False)  # after hit 2, before hit 3
    assert search.position([3, 7, 12], 1) == (0, False)


# -- the findings panel --------------------------------------------------------------------------


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


# -- the frame -----------------------------------------------------------------------------------


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


# -- the help screen -----------------------------------------------------------------------------


class ScreenHarness(App[None]):
    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__(css_path=Path(__file__).parents[2] / "tracer/replay/replay.tcss")
        self.first = screen
        self.result: Any = "not dismissed"

    def on_mount(self) -> None:
        self.push_screen(self.first, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


def run_screen(screen: Screen[Any], keys: list[str], size=(80, 24)) -> ScreenHarness:
    app = ScreenHarness(screen)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()

    asyncio.run(main())
    return app


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


# -- the notice ----------------------------------------------------------------------------------


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


# -- the keys ------------------------------------------------------------------------------------


def test_every_screen_key_is_bound_once_to_an_action_of_the_widget_it_names() -> None:
    import re

    from tracer.replay.keys import KEYS, action_of
    from tracer.replay.screen import ReplayScreen
    from tracer.replay.widgets.chapter_column import ChapterColumn
    from tracer.replay.widgets.key_bar import KeyBar
    from tracer.replay.widgets.loader import TraceLoader
    from tracer.replay.widgets.progress import StepBar
    from tracer.view.i18n_keys import PALETTE

    owners = {
        "step-bar": StepBar,
        "main": Frame,
        "stage": StageView,
        "findings": FindingsPanel,
        "search-bar": SearchBar,
        "chapter": ChapterColumn,
        "loader": TraceLoader,
        "keys": KeyBar,
    }
    keys = [key for binding in KEYS for key in binding.key.split(",")]
    assert len(keys) == len(set(keys))  # no key means two things
    for binding in KEYS:
        routed = re.fullmatch(r"to\('([\w-]+)', '(\w+)(\(.*\))?'\)", binding.action)
        if routed is not None:
            owner, action = owners[routed[1]], routed[2]
        elif binding.action.startswith("app."):
            continue
        else:
            owner, action = ReplayScreen, binding.action.split("(")[0]
        assert callable(getattr(owner, f"action_{action}", None)), binding
    assert all(action_of(key) for key, _ in PALETTE)  # the palette does what a key does


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


# -- the messages --------------------------------------------------------------------------------


def test_only_what_a_newer_message_says_again_is_dropped() -> None:
    """``can_replace``: a click waiting behind a click, a hit behind a hit, a poll behind a poll
    give way to the newer one; a step key's move never does (twenty presses, twenty steps)."""
    from tracer.replay.widgets.loader import TraceLoader
    from tracer.view.state import ReplayState

    def on(state: ReplayState) -> int:
        return state.step + 1

    assert StepBar.Seek(3).can_replace(StepBar.Seek(5))
    assert not StepBar.Seek(move=on).can_replace(StepBar.Seek(move=on))
    assert not StepBar.Seek(3).can_replace(StepBar.Seek(move=on))
    assert not StepBar.Seek(move=on).can_replace(StepBar.Seek(5))
    assert SearchBar.Hit(2).can_replace(SearchBar.Hit(4))
    assert SearchBar.Found([1]).can_replace(SearchBar.Found([1, 2]))
    assert TraceLoader.Poll().can_replace(TraceLoader.Poll())
    assert TraceLoader.Indexed().can_replace(TraceLoader.Indexed())
    assert not TraceLoader.Indexed().can_replace(TraceLoader.Poll())
    assert StepBar.Changed().can_replace(StepBar.Changed())
    assert not Timeline.Selected(2).can_replace(Timeline.Selected(3))  # each row chosen is heard
