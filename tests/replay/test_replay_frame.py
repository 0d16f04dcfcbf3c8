"""The frame through Pilot: sizes, focus, scrolling every panel, zoom, the header and key bar."""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import (
    FAULT_TRACE,
    MAIN_TRACE,
    StubGuide,
    drive,
    make_app,
    stub_diagnosis,
    visible_text,
)

from tracer.files.paths import RECORDINGS_DIR
from tracer.replay import factory
from tracer.replay.widgets.key_bar import fit_keys
from tracer.view import layout
from tracer.view.cursor import locate
from tracer.view.i18n_keys import KEY_HINTS

PANELS = ["#stage", "#debug", "#chapter-step", "#chapter-section", "Timeline"]


def test_at_80x24_the_step_view_takes_most_of_the_width() -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        stage = app.query_one("#stage")
        assert stage.outer_size.width >= 0.6 * 80
        assert not app.query_one("Timeline").display and not app.query_one("#chapter").display
        for key in ("T", "c"):  # one side panel at a time, and the step view keeps ~44 columns
            await pilot.press(key)
            await pilot.pause()
            assert stage.outer_size.width >= layout.MIN_STAGE
        assert app.query_one("#chapter").display and not app.query_one("Timeline").display

    drive(app, script, size=(80, 24))


@pytest.mark.parametrize("width", [110, 140, 200])
def test_wide_screens_show_every_panel_in_fractions(width: int) -> None:
    app = make_app()

    async def script(pilot: Any) -> None:
        stage = app.query_one("#stage").outer_size.width
        chapter = app.query_one("#chapter").outer_size.width
        timeline = app.query_one("Timeline").outer_size.width
        assert stage > chapter and stage > timeline and stage >= layout.MIN_STAGE
        assert chapter < 0.35 * width  # not a fixed 36 columns at 200, nor most of 110

    drive(app, script, size=(width, 40))


def test_layout_plan_folds_side_panels_one_at_a_time() -> None:
    narrow = layout.plan(80, 24, layout.Wishes())
    assert (narrow.timeline, narrow.chapter, narrow.debug, narrow.narrow) == (
        False,
        False,
        False,
        True,
    )
    wide = layout.plan(140, 42, layout.Wishes())
    assert (wide.timeline, wide.chapter, wide.debug) == (True, True, True)
    wishes = layout.toggled(layout.Wishes(), "timeline", False)
    wishes = layout.toggled(wishes, "chapter", False)
    both = layout.plan(100, 30, wishes)
    assert (both.timeline, both.chapter) == (False, True)  # the newest wish wins


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [40, 60, 80, 100, 140, 200])
def test_the_key_bar_always_keeps_help_and_quit(lang: str, width: int) -> None:
    hints = [(k, long[lang], short[lang]) for k, long, short in KEY_HINTS]
    pairs = fit_keys(hints, width)
    assert [k for k, _ in pairs[-2:]] == ["?", "q"]
    if width >= (150 if lang == "zh" else 140):  # labels are shortened before keys are dropped
        assert len(pairs) == len(hints)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_header_and_footer_at_80_columns(lang: str) -> None:
    app = make_app(step=17, lang=lang)

    async def script(pilot: Any) -> None:
        header = "".join(s.text for s in app.query_one("JourneyStrip").render_line(0))
        assert "18/36" in header
        footer = "".join(s.text for s in app.query_one("#keys").render_line(0))
        quit_word = "退出" if lang == "zh" else "quit"
        assert "? " in footer and f"q {quit_word}" in footer

    drive(app, script, size=(80, 24))


def test_tab_cycles_the_panels_and_marks_the_focused_one() -> None:
    app = make_app(step=20)

    async def script(pilot: Any) -> None:
        seen = []
        for _ in range(8):
            focused = app.focused
            assert focused is not None
            seen.append(focused)
            assert focused.styles.border_top[0] == "heavy"  # the mark
            others = [w for w in app.query("Pager, Timeline") if w is not focused]
            assert all(w.styles.border_top[0] != "heavy" for w in others if w.display)
            await pilot.press("tab")
        assert {w.id or type(w).__name__ for w in seen} >= {
            "stage",
            "debug",
            "chapter-step",
            "chapter-section",
            "Timeline",
        }
        await pilot.press("shift+tab")
        assert app.focused is seen[-1]

    drive(app, script, size=(140, 42))


class LongGuide(StubGuide):
    """The stub guide with a step text longer than its panel, so the panel must scroll."""

    def stage_text(self, stage: str, lang: str) -> str:
        return "\n".join(f"[{stage}:{lang}] line {n}" for n in range(40))


@pytest.mark.parametrize("selector", PANELS)
def test_every_panel_scrolls_and_step_keys_work_from_it(selector: str) -> None:
    step = locate(make_app().replay.index, turn=4, stage="resending")
    if selector == "#chapter-section":  # the real guide's sections run to 70 lines and more
        app = make_app(step=step, real_guide=True)
    else:
        app = factory.make_app(
            MAIN_TRACE, factory.ReplayOptions(step=step + 1, lang="en", guide=LongGuide())
        )

    async def script(pilot: Any) -> None:
        panel = app.query_one(selector)
        panel.focus()
        await pilot.pause()
        start = app.replay.step
        if selector == "Timeline":  # a list of steps: scrolling it moves the cursor
            await pilot.press("down")
            assert app.replay.step == start + 1
            await pilot.press("end")
            assert app.replay.step == len(app.replay.index) - 1
            await pilot.press("home", "pagedown")
            assert app.replay.step == 10
            await pilot.press("end")
        else:
            await pilot.press("home")
            assert panel.top == 0
            await pilot.press("end")
            bottom = panel.top
            assert bottom > 0, "the panel has more than a screenful, so End moves"
            await pilot.press("up")
            assert panel.top == bottom - 1
            await pilot.press("pageup", "home", "down")
            assert panel.top == 1
            await pilot.press("pagedown")
            assert panel.top > 1
        before = app.replay.step
        await pilot.press("left", "right", "right")  # step keys from any panel
        assert app.replay.step == min(before + 1, len(app.replay.index) - 1)
        await pilot.press("1")
        assert app.replay.index.stage(app.replay.step) == "mapping"

    drive(app, script, size=(120, 30))


def test_findings_scroll_when_focused() -> None:
    from dataclasses import replace

    from tracer.view.diagnose import Diagnosis, marks_of

    one = stub_diagnosis(FAULT_TRACE).findings[0]
    findings = tuple(replace(one, step=step) for step in (4, 9, 16))  # three, to move between
    diagnosis = Diagnosis(findings, None, marks_of(findings))
    app = make_app(FAULT_TRACE, doctor=True, diagnosis=diagnosis)

    async def script(pilot: Any) -> None:
        panel = app.query_one("#findings")
        assert app.focused is panel and panel.highlighted == 0
        await pilot.press("end")
        last = panel.highlighted
        assert last is not None and last > 0
        assert panel.scroll_offset.y > 0  # more rows than fit: the list scrolled with it
        await pilot.press("home")
        assert panel.highlighted == 0 and panel.scroll_offset.y == 0
        await pilot.press("down")
        assert panel.highlighted not in (None, 0)
        await pilot.press("enter")
        assert app.replay.step == 9 - 1

    drive(app, script, size=(80, 24))


def test_doctor_gives_the_step_view_priority() -> None:
    app = make_app(FAULT_TRACE, doctor=True, diagnosis=stub_diagnosis(FAULT_TRACE))

    async def script(pilot: Any) -> None:
        stage, findings = app.query_one("#stage"), app.query_one("#findings")
        assert findings.display and findings.outer_size.height <= 24 * 0.35 + 1
        assert stage.outer_size.height >= findings.outer_size.height
        assert app.query_one("#debug").display is False  # folded on a short screen

    drive(app, script, size=(80, 24))


def test_zoom_maximises_the_focused_panel_and_restores_it() -> None:
    app = make_app(step=20)

    async def script(pilot: Any) -> None:
        await pilot.press("z")
        assert app.screen.maximized is app.query_one("#stage")
        assert app.query_one("#stage").outer_size.width == 120
        await pilot.press("z")
        assert app.screen.maximized is None

    drive(app, script)


def test_mapping_jumps_between_raw_output_and_block_on_a_small_screen() -> None:
    app = make_app(step=locate(make_app().replay.index, turn=2, stage="mapping"))

    async def script(pilot: Any) -> None:
        stage = app.query_one("#stage")
        assert "tool_result" not in "\n".join(stage.plain_lines()[: stage.content_size.height])
        await pilot.press("b")
        top = stage.plain_lines()[stage.top : stage.top + stage.content_size.height]
        assert any("⇓" in line for line in top) and any('"is_error"' in line for line in top)
        await pilot.press("b")
        assert stage.top == 0

    drive(app, script, size=(80, 24))


def test_the_chapter_panel_text_is_all_reachable_by_keyboard() -> None:
    app = make_app(step=20, real_guide=True)

    async def script(pilot: Any) -> None:
        panel = app.query_one("#chapter-section")
        panel.focus()
        await pilot.press("end")
        lines = panel.plain_lines()
        assert panel.top + panel.content_size.height == len(lines)
        assert visible_text(app, "#chapter")

    drive(app, script, size=(120, 30))


def test_folding_the_focused_panel_gives_the_keys_back_to_the_step_view() -> None:
    app = make_app(step=5)

    async def script(pilot: Any) -> None:
        await pilot.press("T")
        app.query_one("Timeline").focus()
        await pilot.press("down")
        assert app.replay.step == 6
        await pilot.press("T")
        assert app.focused is app.query_one("#stage")

    drive(app, script, size=(80, 24))


def test_doctor_brings_the_faulty_block_into_view() -> None:
    path = RECORDINGS_DIR / "faults" / "04-malformed-result-error-flag.trace.jsonl"
    app = factory.make_app(path, factory.ReplayOptions(doctor=True, lang="en", guide=None))

    async def script(pilot: Any) -> None:
        await app.workers.wait_for_complete()
        await pilot.pause()
        stage = app.query_one("#stage")
        assert app.replay.index.stage(app.replay.step) == "mapping"
        window = stage.plain_lines()[stage.top : stage.top + stage.content_size.height]
        assert stage.top > 0 and any('"is_error"' in line for line in window)

    drive(app, script, size=(80, 24))
