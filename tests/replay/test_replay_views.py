"""Search over what is on screen, unfold, raw JSON, copy, the picker, the palette and the small
fixes, through Pilot and the pure layers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from replay_helpers import MAIN_TRACE, drive, make_app, visible_text

from tracer.files.paths import RECORDINGS_DIR
from tracer.replay import factory
from tracer.replay.widgets.picker import PickerScreen
from tracer.replay.widgets.screens import GotoScreen, HelpScreen
from tracer.trace.reader import TraceReader
from tracer.view import search
from tracer.view.cursor import locate
from tracer.view.fold import unfolded
from tracer.view.raw import request_body, step_json
from tracer.view.render import render_step
from tracer.view.search import HIT
from tracer.view.steps import StepIndex


def _search(app: Any, query: str) -> Any:
    async def script(pilot: Any) -> None:
        await pilot.press("slash", *query, "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

    return script


@pytest.mark.parametrize(
    "lang, query, stage",
    [
        ("zh", "翻译", "mapping"),  # a label that exists only on screen, in Chinese
        ("en", '"is_error": false', "mapping"),  # copied from the mapping view
    ],
)
def test_search_finds_the_text_on_screen(lang: str, query: str, stage: str) -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    hits = search.search_rendered(MAIN_TRACE, query, lang)
    assert hits and index.stage(hits[0]) == stage
    for step in hits:  # every hit is visible where the search lands
        assert query.casefold() in search.step_text(index, step, lang).casefold()
    assert search.search_steps(index, "翻译") == []  # the JSON never says it


def test_raw_prefix_searches_the_json() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await _search(app, "raw:tool_use_result_seq")(pilot)
        assert app.replay.matches and app.replay.step == app.replay.matches[0]
        index = app.replay.index
        assert app.replay.matches == search.search_steps(index, "tool_use_result_seq")

    drive(app, script)


def test_after_enter_the_keys_move_between_hits_and_the_count_stays() -> None:
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await _search(app, "git diff")(pilot)
        assert app.focused is app.query_one("#stage")
        first = app.replay.step
        await pilot.press("n")
        assert app.replay.step == app.replay.matches[1]
        await pilot.press("N")
        assert app.replay.step == first
        await pilot.press("q")  # the keys are the app's again, not the box's
        assert app.query_one("#search-input").value == "git diff"
        assert f"match 1/{len(app.replay.matches)}" in visible_text(app, "#search-count")

    drive(app, script)


def test_escape_in_the_box_keeps_the_matches() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await _search(app, "git diff")(pilot)
        await pilot.press("slash", "escape")
        assert app.focused is app.query_one("#stage")
        assert app.query_one("#search-bar").has_class("shown")
        await pilot.press("full_stop")
        assert app.replay.step == app.replay.matches[1]

    drive(app, script)


def test_hits_are_lit_in_the_step_view() -> None:
    app = make_app(lang="zh")

    async def script(pilot: Any) -> None:
        await _search(app, "翻译")(pilot)
        text = app.query_one("#stage").text
        lit = [text.plain[s.start : s.end] for s in text.spans if str(s.style) == HIT]
        assert lit and all(word == "翻译" for word in lit)

    drive(app, script)


def test_filter_lists_only_the_matching_steps() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        await _search(app, "git diff")(pilot)
        await pilot.press("f")
        timeline = app.query_one("Timeline")
        assert timeline.only == app.replay.matches
        assert {row.step for row in timeline._current_rows()} <= set(app.replay.matches)
        await pilot.press("f")
        assert timeline.only is None

    drive(app, script)


def test_unfold_opens_the_shared_prefix_message_by_message() -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    step = locate(index, turn=3, stage="resending")
    folded = render_step(index, step, "en").plain
    with unfolded():
        opened = render_step(index, step, "en").plain
    assert "same 3 messages as request 2" in folded
    assert "same 3 messages" not in opened
    assert all(f"  {n}. " in opened for n in (1, 2, 3, 4, 5))  # every message of the request


def test_unfold_opens_a_flattened_tool_result_and_long_output() -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    step = locate(index, turn=2, stage="wrapping")
    with unfolded():
        opened = render_step(index, step, "en").plain
    assert "index aa2fc8d..503cc09 100644\n" in opened  # the content on its own lines
    big = StepIndex(TraceReader(RECORDINGS_DIR / "06-large-output.trace.jsonl"))
    run = locate(big, turn=1, stage="tool_run")
    assert "… folded: showing" in render_step(big, run, "en").plain
    with unfolded():
        assert "… folded: showing" not in render_step(big, run, "en").plain


def test_o_unfolds_and_a_new_step_folds_again() -> None:
    app = make_app(step=locate(make_app().replay.index, turn=3, stage="resending"))

    async def script(pilot: Any) -> None:
        await pilot.press("o")
        assert "same 3 messages" not in visible_text(app, "#stage")
        assert "unfolded" in app.query_one("#stage").border_title
        await pilot.press("right", "left")
        assert "same 3 messages" in visible_text(app, "#stage")

    drive(app, script)


def test_raw_is_valid_json_with_the_rebuilt_request() -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    step = locate(index, turn=2, stage="resending")
    data = json.loads(step_json(index, step))
    assert data["records"][-1]["kind"] == "request"
    body = request_body(index, step)
    assert body is not None and data["request_body"] == body
    assert len(body["messages"]) == index.event(step).message_count
    mapping = json.loads(step_json(index, locate(index, turn=2, stage="mapping")))
    assert "request_body" not in mapping and mapping["records"][-1]["kind"] == "mapping"


def test_r_shows_the_raw_json_and_y_copies_it() -> None:
    app = make_app(step=locate(make_app().replay.index, turn=2, stage="resending"))

    async def script(pilot: Any) -> None:
        await pilot.press("r")
        shown = visible_text(app, "#stage")
        assert json.loads(shown)["stage"] == "resending"
        await pilot.press("y")
        assert json.loads(app.clipboard)["request_body"]["messages"]
        await pilot.press("r")
        assert visible_text(app, "#stage").startswith("resending")

    drive(app, script)


def test_the_picker_lists_recordings_with_titles_and_opens_one() -> None:
    app = make_app(lang="zh")

    async def script(pilot: Any) -> None:
        await pilot.press("O")
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        names = [c.name for c in screen.choices]
        assert "05-max-turns" in names and "faults/03-malformed-result" in names
        title = next(c for c in screen.choices if c.name == "05-max-turns").title
        assert title.get("zh") and title["zh"] != title.get("en")
        screen.dismiss(next(c.path for c in screen.choices if c.name == "05-max-turns"))
        await pilot.pause()
        assert app.replay.index.reader.path.name == "05-max-turns.trace.jsonl"
        assert app.replay.step == 0 and "/" in visible_text(app, "#position")

    drive(app, script)


@pytest.mark.parametrize("lang, word", [("zh", "打开录制…"), ("en", "Open a recording…")])
def test_the_palette_lists_the_apps_own_actions_translated(lang: str, word: str) -> None:
    app = make_app(lang=lang)

    async def script(pilot: Any) -> None:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert word in titles
        assert not {"Keys", "Theme", "Screenshot"} & set(titles)  # not Textual's defaults
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert type(app.screen).__name__ == "CommandPalette"
        placeholder = app.screen.query_one("CommandInput").placeholder
        assert placeholder == ("搜索命令…" if lang == "zh" else "Search for commands…")
        await pilot.press(*("最后一步" if lang == "zh" else "Last step"))
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.replay.step == len(app.replay.index) - 1  # the palette ran the app's own action

    drive(app, script)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_palette_says_it_found_nothing_in_the_readers_language(lang: str) -> None:
    from tracer.view.i18n import tr

    app = make_app(lang=lang)
    shown: list[str] = []

    async def script(pilot: Any) -> None:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"qqxqq")  # matches no command and no recording
        await pilot.pause(0.8)  # (past the wait before Textual would say it)
        listing = app.screen.query_one("CommandList")
        shown.extend(
            str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)
        )
        await pilot.press("enter")  # the row does nothing: the palette closes, the step stays
        await pilot.pause()
        assert type(app.screen).__name__ != "CommandPalette" and app.replay.step == 0

    drive(app, script)
    assert shown == [tr("palette_no_matches", lang)]


@pytest.mark.parametrize("lang, words", [("zh", ("要退出吗？", "退出")), ("en", ("Quit?", "quit"))])
def test_ctrl_c_says_which_key_quits_in_the_readers_language(lang: str, words: Any) -> None:
    app = make_app(lang=lang)

    async def script(pilot: Any) -> None:
        await pilot.press("ctrl+c")
        await pilot.pause()
        bar = "".join(s.text for s in app.query_one("#keys").render_line(0))
        assert words[0] in bar and "q" in bar  # asked in the key bar, with the key that quits
        assert app.is_running  # it did not quit

    drive(app, script)


def test_autoplay_at_the_end_starts_again_from_the_top() -> None:
    app = make_app(step=35)

    async def script(pilot: Any) -> None:
        await pilot.press("a")
        # From the top (a loaded machine may already have played a step or two).
        assert app.replay.step < 3 and app.replay.autoplay.playing
        assert "pause" in "".join(s.text for s in app.query_one("#keys").render_line(0))

    drive(app, script)


def test_goto_out_of_range_says_so_and_stays_open() -> None:
    app = make_app(step=3)

    async def script(pilot: Any) -> None:
        await pilot.press("g", "9", "9", "9", "enter")
        assert isinstance(app.screen, GotoScreen)
        assert "no step 999" in str(app.screen.query_one("#goto-error").render())
        await pilot.press("2", "enter")
        assert app.replay.step == 1

    drive(app, script)


@pytest.mark.parametrize(
    "lang, words", [("en", "Esc, ? or q closes this"), ("zh", "按 Esc、? 或 q 关闭")]
)
def test_help_says_how_to_close_it(lang: str, words: str) -> None:
    app = make_app(lang=lang)

    async def script(pilot: Any) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        svg = app.export_screenshot().replace("&#160;", " ")
        assert words.replace(" ", "") in svg.replace(" ", "")

    drive(app, script)


def test_the_large_output_names_the_kept_copy() -> None:
    path = RECORDINGS_DIR / "06-large-output.trace.jsonl"
    index = StepIndex(TraceReader(path))
    text = render_step(index, locate(index, turn=1, stage="mapping"), "en").plain
    flat = text.replace("\n", "").replace(" ", "")
    assert "copykeptwiththerecording:" in flat
    assert "06-large-output.trace.tool-results/toolu_" in flat


def test_a_bundled_recording_opens_by_its_short_name() -> None:
    app = factory.make_app("faults/03-malformed-result", factory.ReplayOptions(guide=None))
    assert app.replay.index.reader.path.name == "03-malformed-result.trace.jsonl"


def test_one_message_is_one_message() -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    singles = [
        s
        for s in range(len(index))
        if index.stage(s) == "resending" and index.event(s).prefix_len == 1
    ]
    assert singles, "the main walk has a request that shares one message with the one before"
    text = render_step(index, singles[0], "en").plain
    assert "same 1 message as request" in text and "1 messages" not in text


def test_unfold_lists_the_history_an_appending_step_added_to() -> None:
    index = StepIndex(TraceReader(MAIN_TRACE))
    step = locate(index, turn=2, stage="appending")
    event = index.event(step)
    with unfolded():
        rows = [
            line
            for line in render_step(index, step, "en").plain.splitlines()
            if line[:5].strip().isdigit()
        ]
    assert [int(row.split()[0]) for row in rows] == list(range(1, event.after_count + 1))
    assert all(
        row.split()[2] not in {u[:8] for u in event.new_uuids} for row in rows[: event.before_count]
    )


def test_a_search_lands_with_its_hit_in_view() -> None:
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await _search(app, "content length:")(pilot)  # near the bottom of the mapping view
        await pilot.pause()
        stage = app.query_one("#stage")
        lines = stage.plain_lines()
        window = lines[stage.top : stage.top + stage.content_size.height - 1]
        assert stage.top > 0 and any("content length:" in line for line in window)

    drive(app, script, size=(80, 24))


def test_hits_are_lit_in_the_debug_console_too() -> None:
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await _search(app, "needsFollowUp")(pilot)
        text = app.query_one("#debug").text
        lit = {text.plain[s.start : s.end] for s in text.spans if str(s.style) == HIT}
        assert lit == {"needsFollowUp"}
        await _search(app, "Loop turn")(pilot)  # a new search lights the new words
        text = app.query_one("#debug").text
        assert {text.plain[s.start : s.end] for s in text.spans if str(s.style) == HIT} == {
            "Loop turn"
        }

    drive(app, script)
