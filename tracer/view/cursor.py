"""The cursor over a trace's steps: where each move leads, and the step a command line names.

:class:`~tracer.view.steps.StepIndex` finds the steps; this moves over them, with step numbers
(0-based) in and out: :func:`clamp` keeps a step inside the index, :func:`next_turn` and
:func:`previous_turn` go by turn group (``]`` and ``[``), :func:`next_of_stage` to the next step
of a station (keys 1–4, :func:`station_stage`: 翻译, 包装, 追加, 重新发送), and :func:`locate`
finds the step ``--step N`` or ``--turn T [--stage S]`` names, indexing only as far as it must.
:class:`Cursor` is the current step with ``--follow``'s rule (at the end, stay at the end), and
:func:`ends_at_terminal` says whether the loop has reached its ``terminal`` step (the
``Terminal`` that ``query.ts``'s ``queryLoop`` ends by returning, as recorded).

Nothing here imports Textual: :class:`~tracer.view.state.ReplayState` asks these for each move
key and the replay screen goes where they say; the exported page and the doctor's panel use
them too.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from tracer.errors import UserError
from tracer.trace.events import STATIONS
from tracer.view.steps import CHUNK, StepIndex


def ends_at_terminal(index: StepIndex) -> bool:
    """Whether the last step indexed so far is the session's end (its ``terminal`` step)."""
    count = len(index)
    return bool(count) and index.stage(count - 1) == "terminal"


def clamp(index: StepIndex, step: int) -> int:
    return max(0, min(step, len(index) - 1))


def next_turn(index: StepIndex, step: int) -> int:
    """The first step of the next turn (or the last step if this is the last turn)."""
    group = index.group_of(step)
    if group + 1 < index.group_count:
        return index.group_starts[group + 1]
    return len(index) - 1


def previous_turn(index: StepIndex, step: int) -> int:
    """The start of this turn, or of the previous one when already at the start."""
    group = index.group_of(step)
    start = index.group_starts[group]
    if step > start or group == 0:
        return start
    return index.group_starts[group - 1]


def steps_of(index: StepIndex, stage: str) -> array:
    """The published steps of ``stage``, ascending (a view; do not change it)."""
    steps = index.by_stage.get(stage)
    if steps is None:
        return array("l")
    return steps[: bisect_left(steps, len(index))]


def next_of_stage(index: StepIndex, step: int, stage: str) -> int | None:
    """The next step of ``stage`` after ``step``, wrapping round to the start; None if none."""
    steps = steps_of(index, stage)
    if not steps:
        return None
    after = bisect_right(steps, step)
    return steps[after] if after < len(steps) else steps[0]


def station_stage(number: int) -> str:
    """Key 1-4 → the chapter's stations: mapping, wrapping, appending, resending."""
    return STATIONS[number - 1]


def locate(
    index: StepIndex, *, step: int | None = None, turn: int | None = None, stage: str | None = None
) -> int:
    """The step ``--step N`` (1-based) or ``--turn T [--stage S]`` names; UserError if none.

    Indexes only as far as it must to find the step (all of the file when it is not there).
    """
    index.extend_until(lambda: len(index) > 0)
    if not len(index):
        raise UserError("the trace has no steps", index.reader.path)
    if step is not None:
        index.extend_until(lambda: len(index) >= step)
        if not 1 <= step <= len(index):
            raise UserError(f"no step {step}: the trace has {len(index)} steps", index.reader.path)
        return step - 1
    if turn is None and stage is None:
        return 0
    checked = 0
    while True:
        for candidate in range(checked, len(index)):
            if turn is not None and index.turn(candidate) != turn:
                continue
            if stage is not None and index.stage(candidate) != stage:
                continue
            return candidate
        checked = len(index)
        if index.complete:
            break
        index.extend(CHUNK)
    wanted = " ".join(
        x
        for x in (f"turn {turn}" if turn is not None else "", f"stage {stage}" if stage else "")
        if x
    )
    raise UserError(f"no step with {wanted} in this trace", index.reader.path)


@dataclass
class Cursor:
    """The current step, plus the rule ``--follow`` needs: at the end, stay at the end."""

    index: StepIndex
    step: int = 0

    @property
    def at_end(self) -> bool:
        return self.step >= len(self.index) - 1

    def go(self, step: int) -> bool:
        """Move to ``step`` (clamped); return True if the step changed."""
        target = clamp(self.index, step)
        moved = target != self.step
        self.step = target
        return moved

    def refresh(self) -> int:
        """Read what the recorder appended; follow the end if we were on it. Returns new steps."""
        was_at_end = self.at_end
        if not self.index.reader.refresh():
            return 0
        added = self.index.extend()
        if added and was_at_end:
            self.step = len(self.index) - 1
        return added
