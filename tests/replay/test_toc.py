"""The table of contents (key ``s``) with Pilot: every section of the real guide can be reached
from it, Enter opens the recording at the step, and the panel then shows that section. SVG
snapshots of the contents and of a tour question use the fixed guide of :mod:`nav_helpers`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nav_helpers import nav_contents, nav_guide, nav_tour
from replay_helpers import MAIN_TRACE, SIZE, drive, make_app, visible_text

from tracer.replay import factory
from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.toc_screen import TocScreen


@pytest.mark.slow  # opens the contents once per section of the real guide
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_section_is_reachable_from_the_contents(lang: str) -> None:
    app = make_app(lang=lang, real_guide=True)
    reached: dict[str, tuple[str, int]] = {}

    async def script(pilot: Any) -> None:
        contents = app.query_one(ChapterColumn).contents()
        for section in contents.sections:
            await pilot.press("s")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TocScreen)
            listing = screen.query_one("OptionList")
            entry = contents.first_stop(section.id)
            wanted = f"{section.id}|{entry.recording.name}"
            listing.highlighted = next(
                i
                for i in range(listing.option_count)
                if listing.get_option_at_index(i).id == wanted
            )
            await pilot.press("enter")
            await pilot.pause()
            assert not isinstance(app.screen, TocScreen)
            assert (app.replay.state.recording.name, app.replay.step) == (
                entry.recording.name,
                entry.first,
            )
            assert section.title[lang] in visible_text(app, "#chapter")
            reached[section.id] = (app.replay.state.recording.name, app.replay.step)

    drive(app, script)
    assert list(reached) == [s.id for s in app.replay.guide.sections]


def test_contents_open_on_a_fault_recording_shows_its_notes_and_doctor() -> None:
    app = make_app(real_guide=True)

    async def script(pilot: Any) -> None:
        entry = app.query_one(ChapterColumn).contents().first_stop("common-errors")
        app.replay.open_trace(entry.recording.path, entry.first)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = visible_text(app, "#chapter")
        assert entry.recording.notes["en"].split()[0] in text
        assert "What was broken on purpose" in text
        assert app.replay.diagnosis is not None and app.replay.diagnosis.findings  # checked anew
        assert len(app.query_one("Timeline").marks) > 0

    drive(app, script)


def test_escape_closes_the_contents_and_stays_put() -> None:
    app = make_app(step=5, contents=nav_contents())

    async def script(pilot: Any) -> None:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, TocScreen)
        await pilot.press("j", "j", "k", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, TocScreen)

    drive(app, script)
    assert app.replay.step == 5 and app.replay.state.recording.name == "main-walk"


def test_the_panel_draws_the_roadmap_as_text() -> None:
    app = factory.make_app(MAIN_TRACE, factory.ReplayOptions(guide=nav_guide()))

    async def script(pilot: Any) -> None:
        text = visible_text(app, "#chapter")
        assert "Section 1" in text and "▸ tool_run" in text and "yes → tool_run ↺" in text

    drive(app, script)


# -- pictures ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_contents_snapshot(snap_compare: Any, lang: str) -> None:
    app = make_app(lang=lang, contents=nav_contents())
    assert snap_compare(app, press=["s"], terminal_size=SIZE)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tour_question_snapshot(snap_compare: Any, lang: str, tmp_path: Path) -> None:
    tour = nav_tour(tmp_path / "tour.json")
    tour.move(
        next(i for i, s in enumerate(tour.stops) if s.kind == "checkpoint" and s.question.choices)
    )
    app = factory.make_app(
        tour.current.recording,
        factory.ReplayOptions(step=tour.current.step + 1, lang=lang, guide=nav_guide(), tour=tour),
    )

    async def settle(pilot: Any) -> None:
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, run_before=settle, terminal_size=SIZE)


@pytest.mark.parametrize(
    "checkpoint_id, elsewhere",
    [
        # The two misplaced checkpoints: approval feedback on a rejection's wrapping, and
        # error marking on a successful Read.
        ("feedback-injection", lambda ev: ev.kind == "wrapping" and not ev.feedback),
        ("error-marking", lambda ev: ev.kind == "mapping" and not ev.block.get("is_error")),
    ],
)
def test_a_checkpoint_shows_only_on_its_own_step(checkpoint_id: str, elsewhere: Any) -> None:
    from tracer.chapter.guide import load_guide
    from tracer.files.paths import resolve_trace
    from tracer.tour.checkpoints import landing_step
    from tracer.trace.reader import TraceReader
    from tracer.view.steps import StepIndex

    checkpoint = next(c for c in load_guide().checkpoints if c.id == checkpoint_id)
    path = resolve_trace(checkpoint.scenario)
    index = StepIndex(TraceReader(path))
    land = landing_step(index, checkpoint)
    other = next(
        s
        for s in range(len(index))
        if index.stage(s) == checkpoint.stage and elsewhere(index.event(s))
    )
    shown: dict[int, str] = {}
    app = factory.make_app(path, factory.ReplayOptions(step=land + 1))

    async def script(pilot: Any) -> None:
        for step in (land, other):
            app.replay.go(step)
            await pilot.pause()
            shown[step] = visible_text(app, "#chapter")

    drive(app, script)
    assert checkpoint_id in shown[land]
    assert checkpoint_id not in shown[other]
