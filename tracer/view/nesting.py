"""Step into a subagent and back out: the pure logic behind Enter and Esc in the replay.

An imported trace can hold a subagent's whole loop inside one ``Task``/``Agent`` call, between a
``subagent_start`` and its ``subagent_end`` record (:class:`~tracer.trace.events.
SubagentStarted`). The replay numbers every step, nested or not, exactly as ``tracer show`` and
the doctor do; this module adds a debugger's view on top:

* **step over** (→ ←): moving never goes deeper than the current step, so in the main loop the
  Task call's step is followed by its result, as if the subagent were one instruction;
* **step into** (Enter): on the step that asks for the Task (``follow_up``), or on the Task's
  result (``tool_run``), go to the first step of the subagent's loop;
* **step out** (Esc): from any step of the subagent, back to the parent at the Task's result.

Depth comes from counting start and end records before a step's event, with two sorted lists and
bisection, so it costs the same on any trace; ``--follow`` calls :meth:`Nesting.update`.
Nothing here imports Textual.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from tracer.view.steps import StepIndex


@dataclass(frozen=True, slots=True)
class Loop:
    """One nested loop: the event indexes of its start and end records (end -1: still open)."""

    start: int
    end: int
    depth: int
    loop: str
    tool_use_id: str


class Nesting:
    """Where the nested loops of a trace are, and how the cursor enters and leaves them."""

    def __init__(self, index: StepIndex, *, lazy: bool = False) -> None:
        self.index = index
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.loops: list[Loop] = []
        self._open: list[int] = []
        """Positions in :attr:`loops` of the loops not closed yet."""
        self._scanned = 0
        if not lazy:  # the replay scans on the first key press, not before the first frame
            self.update()

    def update(self) -> None:
        """Read the start and end records among lines indexed since the last call."""
        reader = self.index.reader
        stop = len(reader)
        for i in range(self._scanned, stop):
            kind = reader.kind_of(i)
            if kind == "subagent_start":
                event = reader[i]
                self.starts.append(i)
                self._open.append(len(self.loops))
                self.loops.append(
                    Loop(
                        i,
                        -1,
                        len(self._open),
                        str(getattr(event, "loop", "")),
                        str(getattr(event, "tool_use_id", "")),
                    )
                )
            elif kind == "subagent_end" and self._open:
                self.ends.append(i)
                k = self._open.pop()
                old = self.loops[k]
                self.loops[k] = Loop(old.start, i, old.depth, old.loop, old.tool_use_id)
        self._scanned = stop

    @property
    def any(self) -> bool:
        return bool(self.starts)

    def _position(self, step: int) -> int:
        return self.index.positions[step]

    def depth(self, step: int) -> int:
        """0 in the main loop, 1 inside a subagent, 2 inside a subagent's subagent, ..."""
        if not self.starts:
            return 0
        pos = self._position(step)
        return bisect_left(self.starts, pos) - bisect_left(self.ends, pos)

    def path(self, step: int) -> list[str]:
        """The names of the subagents' loops around ``step``, outermost first (the header's
        "main-walk › agent-1 › ..."); empty in the main loop."""
        if not self.any or not len(self.index):
            return []
        at = self._position(step)
        return [
            loop.loop for loop in self.loops if loop.start < at and (loop.end < 0 or at < loop.end)
        ]

    def loop_of(self, step: int, depth: int | None = None) -> Loop | None:
        """The nested loop at ``depth`` (default: the innermost) holding ``step``."""
        want = self.depth(step) if depth is None else depth
        if want == 0:
            return None
        pos = self._position(step)
        for loop in reversed(self.loops[: bisect_right(self.starts, pos)]):
            if loop.depth == want and (loop.end < 0 or loop.end > pos):
                return loop
        return None

    def step_over(self, step: int, delta: int) -> int:
        """``step`` moved by ``delta`` (±1) without going deeper than it is."""
        last = len(self.index) - 1
        target = max(0, min(step + delta, last))
        if not self.starts:
            return target
        level = self.depth(step)
        while 0 < target < last and self.depth(target) > level:
            inner = self.loop_of(target, level + 1)
            if inner is None:
                break
            if delta > 0:
                if inner.end < 0:  # still being written: wait at its start
                    return step
                target = self.index.step_at_or_after(inner.end)
            else:
                target = self.index.step_at_or_before(inner.start)
        return target

    def enter(self, step: int) -> int | None:
        """The first step of the subagent this step's Task call runs, or None."""
        if not self.starts or not len(self.index):
            return None
        level = self.depth(step)
        after = step + 1
        if after < len(self.index) and self.depth(after) > level:
            return after  # the Task is asked for here; its loop follows
        before = step - 1
        if before >= 0 and self.depth(before) > level:
            inner = self.loop_of(before, level + 1)  # this is the Task's result: go back in
            if inner is not None:
                return self.index.step_at_or_after(inner.start)
        return None

    def inner(self, step: int) -> tuple[int, int] | None:
        """On a Task call that ran a subagent (the step that asks for it, or its result): the
        first step of the subagent's loop and how many steps it holds (so far, while it runs);
        None elsewhere."""
        first = self.enter(step)
        if first is None:
            return None
        loop = self.loop_of(first, self.depth(step) + 1)
        if loop is None:
            return None
        end = len(self.index) if loop.end < 0 else self.index.step_at_or_after(loop.end)
        return first, max(end - first, 0)

    def leave(self, step: int) -> int | None:
        """The parent's step at the Task's result, or None in the main loop (or while the
        subagent is still running)."""
        loop = self.loop_of(step)
        if loop is None or loop.end < 0:
            return None
        return self.index.step_at_or_after(loop.end)
