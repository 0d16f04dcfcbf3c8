"""The reading widgets' own keys, each widget alone: the step view, a pager, the timeline, search.

``o`` unfolds a step and ``r`` shows it raw and back without losing the unfold; ``b`` jumps to
the block and back; a pager scrolls with j, k and the arrows; the timeline's j and k say which
step was chosen; the search bar finds, counts and clears, escape keeps the last search, and the
counter follows the cursor between hits.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from widget_helpers import Harness, heard, main_index, run

from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.view.cursor import locate


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


def test_timeline_j_k_say_which_step_was_chosen() -> None:
    index = main_index()
    timeline = Timeline(index)

    async def script(pilot: Any, app: Harness) -> None:
        timeline.step = 5  # (as the screen's cursor, bound, sets it)
        await pilot.press("j", "j", "k")

    app = run(timeline, script)
    assert [m.step for m in heard(app, Timeline.Selected)] == [6, 6, 4]


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
