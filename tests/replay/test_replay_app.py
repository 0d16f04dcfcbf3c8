"""The app through Textual's Pilot: every binding, every step kind's view, clicks, search,
autoplay, language, the chapter panel, help, and the notice for a torn trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replay_helpers import MAIN_TRACE, drive, make_app, visible_text

from tracer.replay.app import ReplayApp
from tracer.replay.autoplay import SPEEDS
from tracer.replay.widgets.screens import GotoScreen, HelpScreen
from tracer.trace.events import STAGES
from tracer.view.cursor import locate


def run_keys(keys: list[str], step: int = 0, lang: str = "en") -> ReplayApp:
    app = make_app(step=step, lang=lang)

    async def script(pilot: Any) -> None:
        await pilot.press(*keys)
        await pilot.pause()

    drive(app, script)
    return app


@pytest.mark.parametrize(
    "keys, start, expected",
    [
        (["right"], 0, 1),
        (["l"], 0, 1),
        (["space"], 0, 1),
        (["left"], 5, 4),
        (["h"], 5, 4),
        (["left"], 0, 0),
        ([">"], 0, 35),
        (["<"], 20, 0),
        (["right"], 35, 35),
        (["]"], 0, 1),
        (["n"], 1, 11),
        (["】"], 11, 21),
        (["["], 15, 11),
        (["p"], 11, 1),
        (["【"], 11, 1),
        (["1"], 0, 7),
        (["2"], 0, 8),
        (["3"], 0, 10),  # appending comes after the max_turns check
        (["4"], 0, 2),
        (["1", "1"], 0, 17),
    ],
)
def test_moving_keys(keys: list[str], start: int, expected: int) -> None:
    assert run_keys(keys, start).replay.step == expected


def test_keys_work_the_same_in_chinese() -> None:
    assert run_keys(["right", "right", "]"], lang="zh").replay.step == 11


def test_chinese_punctuation_keys_search_and_move_between_matches() -> None:
    app = make_app(lang="zh")

    async def script(pilot: Any) -> None:
        await pilot.press("、")  # "/" typed with a Chinese input method
        await pilot.press(*"git diff", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        first = app.replay.step
        await pilot.press("。")
        assert app.replay.step == app.replay.matches[1]
        await pilot.press("，")
        assert app.replay.step == first
        assert f"第1/{len(app.replay.matches)}个匹配" in visible_text(app, "#search-count")

    drive(app, script)


def test_every_step_kind_has_its_view() -> None:
    app = make_app()
    seen: dict[str, str] = {}

    async def script(pilot: Any) -> None:
        for _ in range(len(app.replay.index)):
            stage = app.replay.index.stage(app.replay.step)
            seen.setdefault(stage, visible_text(app, "#stage"))
            await pilot.press("right")

    drive(app, script)
    assert set(seen) == set(STAGES)
    assert "needsFollowUp = true" in seen["follow_up"]
    assert "messages: 3 → 7" in seen["appending"]
    assert "reason: completed" in seen["terminal"]


def test_journey_strip_and_position_follow_the_step() -> None:
    app = make_app(step=17)

    async def script(pilot: Any) -> None:
        assert "turn 2 · step 18/36" in visible_text(app, "#position")
        assert "mapping" in visible_text(app, "#stations")

    drive(app, script)


def test_debug_console_prints_up_to_this_step() -> None:
    app = make_app(step=8)  # wrapping of turn 1: the Tool result line has printed

    async def script(pilot: Any) -> None:
        text = visible_text(app, "#debug")
        assert text.splitlines() == [
            "[DEBUG] Loop turn: 1 messages: 3",
            "[DEBUG] needsFollowUp: true tool_use blocks: 1",
            "[DEBUG] Tool result: Bash is_error: false content length: 266",
        ]
        await pilot.press("less_than_sign")
        assert "no [DEBUG] lines yet" in visible_text(app, "#debug")

    drive(app, script)


def test_goto_asks_for_a_step() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("g")
        assert isinstance(app.screen, GotoScreen)
        await pilot.press("2", "5", "enter")
        await pilot.pause()
        assert app.replay.step == 24
        await pilot.press("g", "escape")
        assert app.replay.step == 24

    drive(app, script)


def test_clicking_the_timeline_and_the_progress_bar() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        # Rows: set-up heading, turn-1 heading... the current group is group 0 (set-up) here.
        await pilot.press("]")  # open turn 1: rows are heading "turn 1" + its steps
        rows = app.query_one("Timeline")._rows
        target = next(n for n, r in enumerate(rows) if not r.heading and r.step == 7)
        await pilot.click("Timeline", offset=(3, target + 1))  # +1: the border
        assert app.replay.step == 7
        bar = app.query_one("StepBar")
        await pilot.click("StepBar", offset=(bar.size.width - 1, 0))
        assert app.replay.step == 35
        await pilot.click("StepBar", offset=(0, 0))
        assert app.replay.step == 0

    drive(app, script)


def test_search_counts_and_moves_between_matches() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("/")
        await pilot.press(*"git diff", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.replay.matches and app.replay.step == app.replay.matches[0]
        assert f"match 1/{len(app.replay.matches)}" in visible_text(app, "#search-count")
        assert app.focused is app.query_one("#stage")  # Enter gave the keys back
        await pilot.press(".")
        assert app.replay.step == app.replay.matches[1]
        await pilot.press(",")
        assert app.replay.step == app.replay.matches[0]
        await pilot.press(",")  # wraps round to the last match
        assert app.replay.step == app.replay.matches[-1]

    drive(app, script)


def test_search_with_no_match_says_so() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("/", *"zzqx", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "no match: zzqx" in visible_text(app, "#search-count")
        assert app.replay.step == 0

    drive(app, script)


def test_autoplay_steps_forward_and_stops_at_the_end() -> None:
    app = make_app(step=24)
    ticks: list[Any] = []

    class Timer:  # the test is the clock: each tick is one the test gives, never a race
        def stop(self) -> None:
            ticks.append("stopped")

    def set_interval(interval: float, callback: Any) -> Timer:
        ticks.append(interval)
        ticks.append(callback)
        return Timer()

    async def script(pilot: Any) -> None:
        app.replay.autoplay._set_interval = set_interval
        await pilot.press("+", "+", "+")  # as fast as it goes
        assert app.replay.autoplay.speed == len(SPEEDS) - 1
        await pilot.press("a")
        assert app.replay.autoplay.playing
        assert ticks[0] == 1 / 16
        assert "autoplay 16 steps/s" in visible_text(app, "#position")
        tick = ticks[1]
        for _ in range(100):  # bounded: a dozen steps to go
            if not app.replay.autoplay.playing:
                break
            tick()
            await pilot.pause()
        assert app.replay.step == 35 and ticks[-1] == "stopped"
        await pilot.pause()
        assert "autoplay" not in visible_text(app, "#position")
        await pilot.press("-")
        assert app.replay.autoplay.speed == len(SPEEDS) - 2

    drive(app, script)


def test_autoplay_pauses_on_a_second_press() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("a", "a")
        assert not app.replay.autoplay.playing

    drive(app, script)


def test_language_switch_redraws_everything() -> None:
    app = make_app(step=7)

    async def script(pilot: Any) -> None:
        assert "turn 1 · step 8/36" in visible_text(app, "#position")
        await pilot.press("t")
        assert app.lang == "zh"
        assert "第1轮 · 第8/36步" in visible_text(app, "#position")
        assert "翻译成 tool_result 块" in visible_text(app, "#stage")
        assert "第一站" in visible_text(app, "#chapter")
        await pilot.press("t")
        assert app.lang == "en"

    drive(app, script)


def test_chapter_panel_shows_the_section_and_can_be_hidden() -> None:
    app = make_app(step=7)

    async def script(pilot: Any) -> None:
        text = visible_text(app, "#chapter")
        assert "Station 1: a result" in text
        assert "toolExecution.ts · addToolResult" in text
        assert "tracer.agent.execution · add_tool_result" in text
        assert "Bash merges stderr." in text
        assert "checkpoint cp-1: Length is 266." in text
        await pilot.press("c")
        assert not app.query_one("#chapter").display
        await pilot.press("c")
        assert app.query_one("#chapter").display

    drive(app, script)


def test_the_real_guide_fills_the_chapter_panel() -> None:
    from tracer.chapter.guide import load_guide

    section = load_guide().section_for_stage("mapping")
    app = make_app(step=7, real_guide=True)

    async def script(pilot: Any) -> None:
        assert section.title["en"] in visible_text(app, "#chapter")

    drive(app, script)


@pytest.mark.parametrize("key", ["question_mark", "f1", "？"])
def test_help_opens_and_closes(key: str) -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press(key)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)

    drive(app, script)


def test_quit() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    drive(app, script)


def test_a_torn_trace_opens_and_says_where_it_ends(tmp_path: Path) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "torn.trace.jsonl"
    path.write_text("".join(lines[:20]) + lines[20][:30], encoding="utf-8")
    app = make_app(path)

    async def script(pilot: Any) -> None:
        notice = visible_text(app, "#notice")
        steps = len(app.replay.index)
        assert notice == f"the trace ends mid-event at line 21; showing the first {steps} steps"
        await pilot.press("greater_than_sign")
        assert app.replay.step == steps - 1

    drive(app, script)


def test_open_at_a_step_by_turn_and_stage() -> None:
    app = make_app(step=locate(make_app().replay.index, turn=3, stage="appending"))
    assert (
        app.replay.index.stage(app.replay.step) == "appending"
        and app.replay.index.turn(app.replay.step) == 3
    )


def test_f3_and_shift_f3_move_between_matches() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await pilot.press("/", *"git diff", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.focused is app.query_one("#stage")  # Enter gave the keys back
        await pilot.press("f3")
        assert app.replay.step == app.replay.matches[1]
        await pilot.press("shift+f3")
        assert app.replay.step == app.replay.matches[0]
        await pilot.press("/", "enter")  # Enter on the same query: the next match
        assert app.replay.step == app.replay.matches[1]

    drive(app, script)


@pytest.mark.parametrize("keys, speed", [(["="], 3), (["＋"], 3), (["－"], 1), (["minus"], 1)])
def test_speed_key_aliases(keys: list[str], speed: int) -> None:
    assert run_keys(keys).replay.autoplay.speed == speed


def test_arrow_and_page_keys_scroll_the_stage_view() -> None:
    app = make_app(step=locate(make_app().replay.index, turn=1, stage="mapping"))

    async def script(pilot: Any) -> None:
        view = app.query_one("#stage")
        await pilot.press("down", "down")
        assert view.top == 2
        page = view.content_size.height - 1  # a page keeps one line of the last for context
        most = len(view.plain_lines()) - view.content_size.height
        await pilot.press("pagedown")
        assert view.top == min(2 + page, most) > 2
        await pilot.press("end")
        assert view.top == most
        await pilot.press("home")
        assert view.top == 0
        await pilot.press("pagedown", "pageup", "down")
        assert view.top == 1
        await pilot.press("right")  # a new step starts at its top
        assert view.top == 0

    drive(app, script)
