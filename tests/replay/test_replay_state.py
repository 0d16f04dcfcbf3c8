"""The replay's step logic without Textual: where each move key leads
(:class:`tracer.view.state.ReplayState`), ``--follow``'s rule, and what ``--doctor`` says
when the doctor is done (:class:`tracer.view.diagnose.DoctorWatch`). Nothing here imports
Textual (the first test checks, in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tracer.errors import UserError
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader
from tracer.view.diagnose import Diagnosis, DoctorWatch, diagnose
from tracer.view.nesting import Nesting
from tracer.view.state import ReplayState
from tracer.view.steps import StepIndex

FIXTURES = Path(__file__).parent / "fixtures"
MAIN_TRACE = FIXTURES / "main-walk.trace.jsonl"
FAULT_TRACE = FIXTURES / "01-result-not-returned.trace.jsonl"
SIDECHAIN = Path(__file__).parents[1] / "data" / "claude-code" / "v1.0-inline-sidechain.jsonl"


class _Section:
    def __init__(self, id: str) -> None:
        self.id = id


class _Guide:
    """A guide with one section per stage (``section_for_stage``, as the real one has)."""

    def section_for_stage(self, stage: str) -> _Section:
        return _Section(f"about-{stage}")


def test_the_step_logic_needs_no_textual() -> None:
    code = (
        "import sys\n"
        "import tracer.view.state, tracer.view.diagnose\n"
        "print('textual' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"


def _state(path: Path = MAIN_TRACE, step: int = 0) -> ReplayState:
    return ReplayState(StepIndex(TraceReader(path)), step)


def test_step_and_turn_moves_follow_the_trace() -> None:
    state = _state()
    index = state.index
    assert state.over(1) == 1 and state.over(-1) == 0  # (stays at the first step)
    assert state.last() == len(index) - 1
    first_of_turn_2 = next(s for s in range(len(index)) if index.turn(s) == 2)
    state.go(1)
    assert index.turn(state.next_turn()) == index.turn(1) + 1
    state.go(first_of_turn_2 + 1)
    assert state.previous_turn() == first_of_turn_2  # first back to this turn's start
    state.go(first_of_turn_2)
    assert index.turn(state.previous_turn()) == 1  # then to the turn before


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_the_station_keys_go_to_the_next_step_of_their_stage_and_wrap(number: int) -> None:
    state = _state()
    index, stage = state.index, STATIONS[number - 1]
    steps = [s for s in range(len(index)) if index.stage(s) == stage]
    assert steps, stage
    assert state.station(number) == steps[0]
    state.go(steps[-1])
    assert state.station(number) == steps[0]  # past the last one: round to the first


def test_into_over_and_out_of_a_subagents_loop(tmp_path: Path) -> None:
    trace = tmp_path / "t.trace.jsonl"
    import_claude_code(SIDECHAIN, trace)
    state = _state(trace)
    nesting = Nesting(state.index)
    asks = next(s for s in range(len(state.index)) if nesting.depth(s + 1) > nesting.depth(s))
    state.go(asks)
    inside = state.into()
    assert inside is not None and nesting.depth(inside) == 1
    result = state.over(1)
    assert result > inside and nesting.depth(result) == 0  # stepped over the whole loop
    state.go(inside)
    assert state.out() == result
    assert state.place(inside).startswith("t") and " › " in state.place(inside)
    state.go(0)
    assert state.into() is None and state.out() is None and " › " not in state.place(0)


def test_follow_keeps_the_end_and_leaves_a_reader_who_moved_where_they_are(
    tmp_path: Path,
) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "live.trace.jsonl"
    path.write_text("".join(lines[:20]), encoding="utf-8")
    state = ReplayState(StepIndex(TraceReader(path)), 0)
    state.go(state.last())
    state.start = state.step  # (as the command line opens a followed trace: at its end)
    assert state.follow() is False  # nothing new yet
    with path.open("a", encoding="utf-8") as out:
        out.writelines(lines[20:30])
    assert state.follow() is True
    assert state.step == state.last() and state.untouched  # following the end is not moving
    assert not state.ended  # (no terminal step yet)
    state.go(1)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(lines[30:])
    assert state.follow() is True and state.step == 1 and not state.untouched
    assert state.ended  # the whole session is in: its terminal step too


def test_open_reads_as_far_as_the_step_and_knows_its_own_file(tmp_path: Path) -> None:
    state = ReplayState.open(MAIN_TRACE, 5)
    assert state.step == 5 == state.start and state.untouched
    assert state.shows(MAIN_TRACE.parent / ".." / MAIN_TRACE.parent.name / MAIN_TRACE.name)
    assert not state.shows(FAULT_TRACE)
    far = ReplayState.open(MAIN_TRACE, 10_000)
    far.index.extend()
    assert far.step == len(far.index) - 1  # (a step past the end: the last one)
    not_a_trace = tmp_path / "x.trace.jsonl"
    not_a_trace.write_text("not json\n", encoding="utf-8")
    with pytest.raises(UserError):
        ReplayState.open(not_a_trace)


def test_the_section_is_the_guides_for_the_step_on_screen() -> None:
    state = _state()
    mapping = state.station(1)
    assert mapping is not None
    state.go(mapping)
    assert state.section_id(_Guide()) == "about-mapping"


# -- --doctor ------------------------------------------------------------------------------------


def test_the_doctor_is_reported_once_and_jumps_to_the_first_finding() -> None:
    found = diagnose(FAULT_TRACE)
    assert found.findings and found.first_step is not None
    watch = DoctorWatch(True, jump=True, following=False)
    said = watch.done(found, saw_end=True)
    assert said.show and said.jump == found.first_step and said.say is None
    assert watch.done(found, saw_end=True).jump is None  # said once per trace
    watch.forget()  # another trace opened
    assert watch.done(found, saw_end=True).jump == found.first_step
    positioned = DoctorWatch(True, jump=False, following=False)  # --doctor --step N
    said = positioned.done(found, saw_end=True)
    assert said.show and said.jump is None


def test_the_doctor_says_when_it_found_nothing_or_could_not_check() -> None:
    assert DoctorWatch(True, jump=True, following=False).done(Diagnosis(), saw_end=True).say == (
        "no_findings"
    )
    failed = DoctorWatch(True, jump=True, following=False).done(
        Diagnosis(problem="no such message"), saw_end=True
    )
    assert failed.say == "doctor_failed" and failed.warn and failed.jump is None
    quiet = DoctorWatch(False, jump=False, following=False)  # no --doctor: only the marks
    assert quiet.done(diagnose(FAULT_TRACE), saw_end=True) == quiet.done(Diagnosis(), saw_end=True)
    assert not quiet.done(Diagnosis(problem="x"), saw_end=True).say


def test_a_followed_trace_is_reported_once_it_has_ended() -> None:
    found = diagnose(FAULT_TRACE)
    watch = DoctorWatch(True, jump=True, following=True)
    assert not watch.done(found, saw_end=False).show  # still being written: not yet
    assert watch.recheck(ended=False) is False and watch.recheck(ended=True) is True
    assert watch.done(found, saw_end=True).show  # checked again at its end: now
    assert watch.recheck(ended=True) is False  # (that check saw the end)
