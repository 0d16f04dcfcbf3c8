"""With Pilot, as a reader at 80x24 would find it: every dialog fits and keeps its key line, the
layout re-flows on a resize, the screen always says where the reader is (the recording, the
subagent's loop, turns counted per loop, a first-screen orientation), and search behaves like
less's (Esc clears it, the counter follows the cursor, the chapter panel is searched too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replay_helpers import drive, make_app, visible_text

from tracer.importers.claude_code.importer import import_claude_code
from tracer.replay.widgets.toc_screen import TocScreen
from tracer.trace.reader import TraceReader
from tracer.view.search import HIT
from tracer.view.steps import StepIndex

SIDECHAIN = Path(__file__).parents[1] / "data" / "claude-code" / "v1.0-inline-sidechain.jsonl"


@pytest.fixture
def subagent_trace(tmp_path: Path) -> Path:
    out = tmp_path / "sub.trace.jsonl"
    import_claude_code(SIDECHAIN, out)
    return out


def _inside(outer: Any, inner: Any) -> bool:
    return outer.contains_region(inner)


# -- 1. every screen fits 80x24 ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_contents_scroll_to_their_last_section_at_80x24(lang: str) -> None:
    app = make_app(lang=lang, real_guide=True)

    async def script(pilot: Any) -> None:
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TocScreen)
        listing = screen.query_one("OptionList")
        hint = screen.query_one("#toc-hint")
        await pilot.press("end")
        await pilot.pause()
        last = listing.get_option_at_index(listing.highlighted)
        assert (last.id or "").startswith(
            app.replay.guide.sections[-1].id + "|"
        )  # section 12's row
        assert listing.max_scroll_y > 0  # the list scrolled, the box did not grow
        assert _inside(screen.region, hint.region) and _inside(screen.region, listing.region)
        # The highlight is inside the visible part of the list.
        assert listing.scroll_y <= listing.highlighted <= listing.scroll_y + listing.size.height

    drive(app, script, size=(80, 24))


def test_the_more_recordings_row_opens_the_rest() -> None:
    app = make_app(lang="en", real_guide=True)

    async def script(pilot: Any) -> None:
        await pilot.press("s")
        await pilot.pause()
        listing = app.screen.query_one("OptionList")
        more = next(
            i
            for i in range(listing.option_count)
            if (listing.get_option_at_index(i).id or "").startswith("more|")
        )
        before = listing.option_count
        listing.highlighted = more
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TocScreen) and listing.option_count > before
        assert listing.get_option_at_index(more).id.count("|") == 1  # now a recording
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, TocScreen)
        assert app.query_one("#chapter").display  # at 80x24 too, the section is shown

    drive(app, script, size=(80, 24))


def test_the_layout_re_flows_when_the_terminal_shrinks_and_grows() -> None:
    app = make_app(lang="en", step=20)

    async def script(pilot: Any) -> None:
        assert app.query_one("Timeline").display and app.query_one("#chapter").display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert not app.query_one("Timeline").display and not app.query_one("#chapter").display
        assert app.query_one("#stage").size.width > 70
        await pilot.resize_terminal(140, 42)
        await pilot.pause()
        await pilot.pause()
        assert app.query_one("Timeline").display and app.query_one("#chapter").display

    drive(app, script, size=(140, 42))


# -- 2. always say where the reader is -----------------------------------------------------------


def test_the_header_names_the_recording_and_the_subagent(subagent_trace: Path) -> None:
    app = make_app(subagent_trace, lang="en", step=8)

    async def script(pilot: Any) -> None:
        right = visible_text(app, "#position")
        assert "sub" in right and "toolu_i1" in right  # sub.trace.jsonl › toolu_i1
        assert "turn 1 · step 9/30" in right  # the subagent's own turn 1, as the step says
        assert "response" in "".join(s.text for s in app.query_one("JourneyStrip").render_line(0))
        assert "toolu_i1" in str(app.query_one("#stage").border_subtitle)

    drive(app, script, size=(80, 24))


def test_turns_count_per_loop_and_the_timeline_keeps_loops_apart(subagent_trace: Path) -> None:
    index = StepIndex(TraceReader(subagent_trace))
    events = [index.event(s) for s in range(len(index))]
    assert [index.turn(s) for s in range(len(index))] == [e.turn for e in events]
    main_tool_run = next(
        s for s, e in enumerate(events) if e.kind == "tool_run" and e.tool == "Task"
    )
    assert index.turn(main_tool_run) == 1  # not turn 3
    groups = {index.group_of(s) for s in range(7, 20)}  # the subagent's steps
    assert index.group_of(3) not in groups  # never mixed into the main turn 1
    assert all(index.group_depth(g) == 1 for g in groups)
    app = make_app(subagent_trace, lang="zh", step=8)
    headings: list[str] = []

    async def script(pilot: Any) -> None:
        timeline = app.query_one("Timeline")
        headings.extend(timeline._heading(g) for g in range(index.group_count))

    drive(app, script, size=(140, 42))
    assert "↳ 子代理第1轮" in headings and "第1轮（续）" in headings


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_screen_says_chapter_12_and_what_the_numbers_are(lang: str) -> None:
    app = make_app(lang=lang)

    async def script(pilot: Any) -> None:
        orient = app.query_one("#orient")
        words = visible_text(app, "#orient")
        assert "12" in words and "①–④" in words and "1–4" in words and "?" in words
        assert orient.display and orient.region.width == 80
        await pilot.press("right")
        assert not orient.display  # gone once the reader moves: the row goes to the step

    drive(app, script, size=(80, 24))


# -- 4. less-style search ------------------------------------------------------------------------


def test_escape_clears_the_search_and_every_highlight() -> None:
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await pilot.press("slash", *"is_error", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.replay.matches and app.query_one("#search-bar").has_class("shown")
        assert any(str(s.style) == HIT for s in app.query_one("#stage").text.spans)
        await pilot.press("escape")
        await pilot.pause()
        assert not app.query_one("#search-bar").has_class("shown") and app.replay.matches == []
        assert not any(str(s.style) == HIT for s in app.query_one("#stage").text.spans)
        await pilot.press("n")  # no search: n is "next turn" again
        assert app.replay.index.stage(app.replay.step) == "turn_start"

    drive(app, script)


def test_the_counter_follows_the_current_hit_as_you_step() -> None:
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await pilot.press("slash", *"git diff", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        total = len(app.replay.matches)
        await pilot.press("n", "n")
        assert f"match 3/{total}" in visible_text(app, "#search-count")
        while app.replay.step in app.replay.matches:  # step on until off the hits
            await pilot.press("right")
        n = sum(1 for m in app.replay.matches if m < app.replay.step)
        assert f"after match {n}/{total}" in visible_text(app, "#search-count")
        await pilot.press("left")  # back onto the last hit passed
        assert app.replay.step == app.replay.matches[n - 1]
        assert f"match {n}/{total}" in visible_text(app, "#search-count")

    drive(app, script)


def test_the_chapter_panel_is_searched_too() -> None:
    app = make_app(lang="en", real_guide=True)

    async def script(pilot: Any) -> None:
        await pilot.press("slash", *"while (true)", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        panels = list(app.query("ChapterPanel"))
        lit = [
            p.text.plain[s.start : s.end]
            for p in panels
            for s in p.text.spans
            if str(s.style) == HIT
        ]
        assert lit and all(word.lower() == "while (true)" for word in lit)

    drive(app, script)
