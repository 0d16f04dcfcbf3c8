"""Which section a step belongs to, and the table of contents built from the same rule (pure).

The real guide and the bundled recordings: every one of the chapter's sections must be shown by
at least one bundled step, and the table of contents must list exactly the steps whose panel
shows the section.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from nav_helpers import nav_contents, nav_guide
from replay_helpers import FAULT_TRACE, MAIN_TRACE

from tracer.chapter.guide import load_guide
from tracer.errors import UserError
from tracer.files.paths import bundled_recordings, resolve_trace
from tracer.trace.reader import TraceReader
from tracer.view.cursor import locate
from tracer.view.sections import (
    Entry,
    RecordingInfo,
    bundled_contents,
    recording_info,
    section_for_step,
)
from tracer.view.steps import StepIndex


@pytest.fixture(scope="module")
def guide():  # type: ignore[no-untyped-def]
    return load_guide()


@pytest.fixture(scope="module")
def contents(guide):  # type: ignore[no-untyped-def]
    return bundled_contents(guide)


def _open(name: str) -> tuple[RecordingInfo, StepIndex]:
    path = resolve_trace(name)
    reader = TraceReader(path)
    return recording_info(path, reader.header), StepIndex(reader)


def _section_at(guide, name: str, step: int) -> str:  # type: ignore[no-untyped-def]
    """The section id the panel shows at 1-based ``step`` of a bundled recording."""
    rec, index = _open(name)
    section, _ = section_for_step(guide, rec, index.stage(step - 1), index.turn(step - 1))
    return section.id


def test_every_section_is_shown_on_a_bundled_step(guide, contents) -> None:  # type: ignore[no-untyped-def]
    shown = set()
    for path in bundled_recordings():
        reader = TraceReader(path)
        rec, index = recording_info(path, reader.header), StepIndex(reader)
        for step in range(len(index)):
            section, _ = section_for_step(guide, rec, index.stage(step), index.turn(step))
            shown.add(section.id)
    assert shown == {s.id for s in guide.sections}
    # ... and the table of contents lists each of them, in the book's order.
    assert [s.id for s in contents.sections] == [s.id for s in guide.sections]
    assert all(contents.of(s.id) for s in guide.sections)


def test_contents_lists_exactly_the_steps_whose_panel_shows_the_section(guide, contents) -> None:  # type: ignore[no-untyped-def]
    for section in guide.sections:
        for entry in contents.of(section.id):
            rec, index = _open(entry.recording.name)
            expected = [
                s
                for s in range(len(index))
                if section_for_step(guide, rec, index.stage(s), index.turn(s))[0].id == section.id
            ]
            assert entry.steps == expected, (section.id, entry.recording.name)


def test_the_readme_step_for_errors_shows_the_errors_section(guide) -> None:  # type: ignore[no-untyped-def]
    # The README sends readers to step 7 of 02-error-path for 出错了怎么办.
    _, index = _open("02-error-path")
    step = locate(index, turn=1, stage="tool_run")
    assert index.event(step).error_kind == "input_validation"
    assert _section_at(guide, "02-error-path", step + 1) == "errors"
    assert guide.section("errors").title.zh == "出错了怎么办"


def test_an_anchor_pins_a_scenario_section_to_its_steps(guide) -> None:  # type: ignore[no-untyped-def]
    # 02-error-path's section is "errors", but the guide anchors it to turn 1: the successful
    # Read of turn 2 is explained by station 1, as any other mapping step is.
    rec, index = _open("02-error-path")
    assert guide.section(rec.section).id == "errors"
    read = locate(index, turn=2, stage="mapping")
    assert not index.event(read).block.get("is_error")
    assert _section_at(guide, "02-error-path", read + 1) == guide.section_for_stage("mapping").id


def test_scenario_section_covers_only_the_stages_it_lists() -> None:
    guide = nav_guide()
    rec = RecordingInfo("x", "x", section="errors")
    assert section_for_step(guide, rec, "mapping", 1)[0].id == "errors"
    assert section_for_step(guide, rec, "mapping", 1)[1] == "scenario"
    # "errors" does not list resending: the stage's own section.
    assert section_for_step(guide, rec, "resending", 1) == (guide.section("station-3"), "stage")
    # A section with no stages (common errors) covers every step of its recording.
    rec = RecordingInfo("faults/x", "x", section="common-errors")
    assert section_for_step(guide, rec, "resending", 2)[0].id == "common-errors"


def test_anchors_come_before_the_scenario_and_the_stage() -> None:
    guide = nav_guide()
    main = RecordingInfo("01-main-walk", "01-main-walk", section="station-2")
    assert section_for_step(guide, main, "session", 0) == (guide.section("roadmap"), "anchor")
    other = replace(main, name="09-no-tools", scenario="09-no-tools", section=None)
    assert section_for_step(guide, other, "session", 0)[0].id == "station-3"


def test_fault_recordings_carry_their_scenario_notes(guide, contents) -> None:  # type: ignore[no-untyped-def]
    faults = [p for p in bundled_recordings() if p.parent.name == "faults"]
    assert faults
    for path in faults:
        rec = recording_info(path, TraceReader(path).header)
        assert rec.fault and rec.notes["zh"] and rec.notes["en"], rec.name
        assert guide.section(rec.section).id == "common-errors"
    featured = [e.recording.name for e in contents.of("common-errors") if e.featured]
    assert featured and all(name.startswith("faults/") for name in featured)


def test_a_missing_scenario_costs_only_its_notes(tmp_path: Path) -> None:
    header = {"source": {"kind": "scenario", "name": "gone", "path": "nowhere/gone.yaml"}}
    rec = recording_info(tmp_path / "gone.trace.jsonl", header)
    assert (rec.section, rec.notes, rec.scenario) == (None, {}, "gone")


def test_entry_ranges_number_steps_from_one() -> None:
    entry = Entry(RecordingInfo("r"), [2, 3, 4, 9, 11, 12], True)
    assert entry.ranges() == [(3, 5), (10, 10), (12, 13)]


def test_contents_puts_featured_recordings_first() -> None:
    contents = nav_contents()
    roadmap = contents.of("roadmap")
    assert [(e.recording.name, e.steps, e.featured) for e in roadmap] == [("main-walk", [0], True)]
    station_3 = contents.of("station-3")
    assert {e.recording.name for e in station_3} >= {"main-walk", "01-result-not-returned"}
    assert contents.first_stop("station-1").recording.path in (MAIN_TRACE, FAULT_TRACE)


@pytest.mark.parametrize(
    "anchor, problem",
    [
        ("{section: nowhere, recording: 01-main-walk}", "no section with id 'nowhere'"),
        ("{section: roadmap, recording: 01-main-walk, stages: [flying]}", "unknown stage 'flying'"),
        ("{section: roadmap, recording: 01-main-walk, turn: 0}", "whole number of at least 1"),
        ("{section: roadmap}", "anchors[0].recording: missing"),
    ],
)
def test_a_bad_anchor_is_one_line_with_its_place(tmp_path: Path, anchor: str, problem: str) -> None:
    from tracer.chapter.guide import guide_path

    source = guide_path().read_text(encoding="utf-8")
    head = source[: source.index("\nanchors:")]
    rest = source[source.index("\n# The chapter's table of common errors") :]
    bad = tmp_path / "guide.yaml"
    bad.write_text(head + "\nanchors:\n  - " + anchor + "\n" + rest, encoding="utf-8")
    (tmp_path / "scenarios").symlink_to(guide_path().parent / "scenarios")
    with pytest.raises(UserError) as caught:
        load_guide(bad)
    message = str(caught.value)
    assert problem in message and message.startswith(f"{bad}:") and "\n" not in message


def test_a_section_opens_where_the_guide_anchors_it(guide, contents) -> None:  # type: ignore[no-untyped-def]
    firsts = {}
    for anchor in guide.anchors:  # a section opens at the first of its anchors in a recording
        firsts.setdefault((anchor.section, anchor.recording), anchor)
    for anchor in firsts.values():
        entry = next(e for e in contents.of(anchor.section) if e.recording.called(anchor.recording))
        _, index = _open(entry.recording.name)
        assert entry.anchored and entry.first == entry.anchored[0]
        assert index.stage(entry.first) in anchor.stages or not anchor.stages
        assert anchor.turn is None or index.turn(entry.first) == anchor.turn
        # Anchored recordings come first under their section.
        assert contents.of(anchor.section)[0].anchored


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_checkpoints_panel_names_all_seven(guide, lang: str) -> None:  # type: ignore[no-untyped-def]
    from tracer.tour.cards import checkpoint_name
    from tracer.view.section_text import section_text

    panel = section_text(guide.section("checkpoints"), lang).plain.replace("\n", "")
    names = [checkpoint_name(c, lang) for c in guide.checkpoints]
    assert len(names) == 7
    missing = [n for n in names if n.lower() not in panel.lower()]
    assert missing == []


@pytest.mark.parametrize("name", ["10-tool-use-error-forms", "11-permission-reject-abort"])
def test_scenario_notes_have_their_own_heading_not_the_faults(name: str) -> None:
    # Scenarios 10–13 have notes too, but nothing in them is broken on purpose.
    from tracer.view.chapter_panel import section_panel_text

    rec, _ = _open(name)
    assert rec.notes and not rec.fault
    text = section_panel_text(None, "zh", rec, guide_loaded=False).plain
    assert text.startswith("这个场景演示什么\n") and "故意弄坏了什么" not in text
    fault, _ = _open("faults/03-malformed-result")
    assert fault.fault and fault.breaks
    assert section_panel_text(None, "en", fault, guide_loaded=False).plain.startswith(
        "What was broken on purpose"
    )
