"""Where the replay is: the open trace, the cursor on it, and the step each move key leads to.

The replay screen (:mod:`tracer.replay.screen`) draws and this object decides, so the replay's
step logic is tested without Textual (``tests/replay/test_replay_state.py``). A
:class:`ReplayState` holds one trace: its :class:`~tracer.view.steps.StepIndex`, the
:class:`~tracer.view.cursor.Cursor` on it, the subagents' loops
(:class:`~tracer.view.nesting.Nesting`), what the recording is
(:func:`~tracer.view.sections.recording_info`), and the step the replay opened at. Each move
(← →, ``[`` ``]``, 1–4, Enter into a subagent's loop, Escape out of it) is a method that gives
the step to go to (None: stay), and the screen goes there; ``--follow``'s rule (at the end, stay
at the end) is :meth:`ReplayState.follow`. Opening another trace makes a new state
(:meth:`ReplayState.open`), so nothing here outlives its trace.
"""

from __future__ import annotations

from pathlib import Path

from tracer.text.printable import printable
from tracer.trace.events import STATIONS
from tracer.view.cursor import (
    Cursor,
    clamp,
    ends_at_terminal,
    next_of_stage,
    next_turn,
    previous_turn,
)
from tracer.view.nesting import Loop, Nesting
from tracer.view.sections import recording_info, section_for_step
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Guide

LAST = -1
"""The step :meth:`ReplayState.open` reads as "the last step written so far"."""


class ReplayState:
    """One open trace and the reader's place in it."""

    def __init__(self, index: StepIndex, step: int = 0) -> None:
        self.index = index
        self.cursor = Cursor(index, step)
        self.nesting = Nesting(index, lazy=True)
        """Subagents' nested loops: step over them, into them (Enter), out of them (Esc)."""
        header = getattr(index.reader, "header", {}) or {}
        source = header.get("source") or {}
        self.scenario: str | None = source.get("name") if isinstance(source, dict) else None
        self.recording = recording_info(Path(index.reader.path), header)
        self.start = self.cursor.step
        """The step the replay opened at, or the end ``--follow`` has kept up with. While the
        cursor is still there the reader has not moved, so following the end and ``--doctor``'s
        jump to the first finding may move it."""

    @classmethod
    def open(cls, path: Path, step: int = 0) -> ReplayState:
        """The trace at ``path``, read as far as 0-based ``step`` (the rest is indexed later;
        :data:`LAST`: read it all and open at its last step).

        Raises :class:`~tracer.errors.UserError` for a file that is not a trace."""
        from tracer.trace.reader import TraceReader

        index = StepIndex(TraceReader(path), eager=False)
        index.extend_until(lambda: index.complete or (step != LAST and len(index) > step))
        if step == LAST:
            step = len(index) - 1
        return cls(index, clamp(index, step) if len(index) else 0)

    def shows(self, path: Path) -> bool:
        """Whether ``path`` is the trace open here (and it has steps to move between)."""
        current = getattr(self.index.reader, "path", None)
        return current is not None and _same(Path(path), Path(current)) and bool(len(self.index))

    @property
    def step(self) -> int:
        """The 0-based step on screen."""
        return self.cursor.step

    @property
    def untouched(self) -> bool:
        """Whether the reader has not moved since the replay opened (or caught up)."""
        return self.cursor.step == self.start

    @property
    def ended(self) -> bool:
        """Whether the session's end (its ``terminal`` step) has been read and nothing follows."""
        return self.index.complete and ends_at_terminal(self.index)

    def go(self, step: int) -> int:
        """Move the cursor to ``step`` (clamped to the trace); the step it is on now."""
        self.cursor.go(step)
        return self.cursor.step

    def follow(self) -> bool:
        """``--follow``: take in what the recorder appended. True when steps were added (the
        cursor stays at the end if it was there; that is not the reader moving)."""
        untouched = self.untouched
        if not self.cursor.refresh():
            return False
        if untouched:
            self.start = self.cursor.step
        return True

    # -- where the cursor is ---------------------------------------------------------------

    def place(self, step: int) -> str:
        """Where ``step`` is: the recording's name, and the subagents' loops around it."""
        from tracer.files.paths import short_name

        parts = [short_name(Path(self.index.reader.path)), *self.nesting.path(step)]
        return printable(" › ".join(parts))  # a file name and a loop name are input

    def loop(self) -> Loop | None:
        """The innermost subagent loop the cursor is in (None: the main loop)."""
        if self.index.complete:  # (a huge trace: once the background indexing is done)
            self.nesting.update()
        if not self.nesting.any or not len(self.index):
            return None
        return self.nesting.loop_of(self.step)

    def subagent_at(self, step: int) -> tuple[int, int] | None:
        """On a Task call that ran a subagent: its loop's first step and its number of steps
        (the Task step says that ``i`` goes in, and that → steps over them)."""
        if self.index.complete:  # (a huge trace: once the background indexing is done)
            self.nesting.update()
        if not self.nesting.any or not len(self.index):
            return None
        return self.nesting.inner(step)

    def section_id(self, guide: Guide | None) -> str | None:
        """The id of the chapter's section for the step on screen (None: none covers it)."""
        if not len(self.index):
            return None
        stage, turn = self.index.stage(self.step), self.index.turn(self.step)
        section, _ = section_for_step(guide, self.recording, stage, turn)
        return getattr(section, "id", None)

    # -- the moves: each gives the step to go to -------------------------------------------

    def over(self, delta: int) -> int:
        """← →: ``delta`` steps on, stepping over a subagent's loop rather than into it."""
        self.nesting.update()
        return self.nesting.step_over(self.step, delta)

    def into(self) -> int | None:
        """``i`` (Enter on a Task call): the first step of the subagent's loop it ran."""
        self.nesting.update()
        return self.nesting.enter(self.step)

    def out(self) -> int | None:
        """``u`` (Escape): back in the parent's loop, at the Task call's result."""
        self.nesting.update()
        return self.nesting.leave(self.step)

    def last(self) -> int:
        return len(self.index) - 1

    def next_turn(self) -> int:
        return next_turn(self.index, self.step)

    def previous_turn(self) -> int:
        return previous_turn(self.index, self.step)

    def station(self, number: int) -> int | None:
        """Keys 1–4: the next step of that kind of a result's trip, ① 翻译 to ④ 重新发送
        (wrapping round). (The method's name is older than the book's words: these are steps.)"""
        return next_of_stage(self.index, self.step, STATIONS[number - 1])


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
