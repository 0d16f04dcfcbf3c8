"""Step logic without Textual: indexing, turns, moving, locating, following a growing file."""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_helpers import MAIN_TRACE

from tracer.errors import UserError
from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader
from tracer.view.cursor import (
    Cursor,
    locate,
    next_of_stage,
    next_turn,
    previous_turn,
    station_stage,
)
from tracer.view.steps import StepIndex


@pytest.fixture
def index() -> StepIndex:
    return StepIndex(TraceReader(MAIN_TRACE))


def test_steps_are_the_events_with_a_stage(index: StepIndex) -> None:
    assert len(index) == 36
    assert index.stage(0) == "session" and index.turn(0) == 0
    assert [index.stage(s) for s in range(1, 11)] == [
        "turn_start",
        "resending",
        "response",
        "follow_up",
        "permission",
        "tool_run",
        "mapping",
        "wrapping",
        "max_turns_check",  # checked before the next State is built, as query.ts does
        "appending",
    ]
    assert index.stage(35) == "terminal" and index.turn(35) == 4
    assert index.event(7).kind == "mapping"


def test_turn_groups_start_at_each_turn_start(index: StepIndex) -> None:
    assert list(index.group_starts) == [0, 1, 11, 21, 31]
    assert index.group_of(0) == 0 and index.group_of(12) == 2
    assert list(index.group_range(4)) == list(range(31, 36))


def test_debug_lines_count_includes_hooks_printed_right_after_a_step(index: StepIndex) -> None:
    assert index.debug_count_through(0) == 0
    assert index.debug_count_through(1) == 1  # Loop turn: 1 prints after turn_start
    assert index.debug_count_through(8) == 3  # Tool result prints after wrapping
    assert index.debug_count_through(35) == 11  # 4 loop turns, 4 follow-ups, 3 results


def test_turn_moves(index: StepIndex) -> None:
    assert next_turn(index, 0) == 1
    assert next_turn(index, 5) == 11
    assert next_turn(index, 33) == 35  # last turn: go to the last step
    assert previous_turn(index, 15) == 11  # inside a turn: its start
    assert previous_turn(index, 11) == 1  # at a start: the previous turn
    assert previous_turn(index, 0) == 0


def test_stations_move_to_the_next_step_of_their_stage_and_wrap(index: StepIndex) -> None:
    assert station_stage(1) == "mapping" and station_stage(4) == "resending"
    assert next_of_stage(index, 0, "mapping") == 7
    assert next_of_stage(index, 7, "mapping") == 17
    assert next_of_stage(index, 30, "mapping") == 7  # wraps round
    assert next_of_stage(index, 0, "resending") == 2
    assert next_of_stage(index, 0, "no_such_stage") is None


def test_locate_by_step_turn_and_stage(index: StepIndex) -> None:
    assert locate(index) == 0
    assert locate(index, step=14) == 13
    assert locate(index, turn=2) == 11
    assert locate(index, turn=2, stage="mapping") == 17
    assert locate(index, stage="terminal") == 35


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"step": 0}, "no step 0: the trace has 36 steps"),
        ({"step": 37}, "no step 37"),
        ({"turn": 9}, "no step with turn 9"),
        ({"turn": 4, "stage": "mapping"}, "no step with turn 4 stage mapping"),
    ],
)
def test_locate_names_what_is_missing(index: StepIndex, kwargs: dict, words: str) -> None:
    with pytest.raises(UserError, match=words):
        locate(index, **kwargs)


def _partial_copy(tmp_path: Path, lines: int) -> tuple[Path, list[str]]:
    all_lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "growing.trace.jsonl"
    path.write_text("".join(all_lines[:lines]), encoding="utf-8")
    return path, all_lines


def test_cursor_at_the_end_follows_new_steps(tmp_path: Path) -> None:
    path, all_lines = _partial_copy(tmp_path, 12)
    index = StepIndex(TraceReader(path))
    cursor = Cursor(index, len(index) - 1)
    before = len(index)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(all_lines[12:30])
    assert cursor.refresh() > 0
    assert len(index) > before
    assert cursor.step == len(index) - 1


def test_cursor_elsewhere_stays_put_when_steps_arrive(tmp_path: Path) -> None:
    path, all_lines = _partial_copy(tmp_path, 30)
    index = StepIndex(TraceReader(path))
    cursor = Cursor(index, 1)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(all_lines[30:])
    assert cursor.refresh() > 0
    assert cursor.step == 1
    assert len(index) == 36


def test_a_half_written_line_waits_for_its_newline(tmp_path: Path) -> None:
    path, all_lines = _partial_copy(tmp_path, 12)
    index = StepIndex(TraceReader(path))
    cursor = Cursor(index, len(index) - 1)
    count = len(index)
    half = all_lines[12][:20]
    with path.open("a", encoding="utf-8") as out:
        out.write(half)
    assert cursor.refresh() == 0 and len(index) == count
    with path.open("a", encoding="utf-8") as out:
        out.write(all_lines[12][20:])
        out.writelines(all_lines[13:20])
    assert cursor.refresh() > 0


@pytest.mark.parametrize(
    "env, lang",
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_follows_the_locale(env: dict[str, str], lang: str) -> None:
    from tracer.view.i18n import default_lang

    assert default_lang(env) == lang


def _first_resending_step(index: StepIndex, request_index: int) -> int | None:
    """The reference: every resending step, scanned in order."""
    for step in index.by_stage.get("resending", []):
        if getattr(index.event(step), "request_index", None) == request_index:
            return step
    return None


@pytest.mark.parametrize(
    "trace",
    [MAIN_TRACE, Path(ROOT) / "recordings" / "faults" / "01-result-not-returned.trace.jsonl"],
    ids=["main walk", "fault 01 (a request sent unpatched, then patched)"],
)
def test_a_requests_step_is_found_as_the_scan_finds_it(trace: Path) -> None:
    full = StepIndex(TraceReader(trace))
    requests = {getattr(full.event(s), "request_index", None) for s in full.by_stage["resending"]}
    assert len(requests - {None}) >= 2
    for number in [*sorted(requests - {None}), 0, max(requests - {None}) + 1]:
        assert full.request_step(number) == _first_resending_step(full, number)
