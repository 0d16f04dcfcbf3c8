"""Pure step logic: which events are steps, and which turn each is in.

A trace holds steps (events with a ``stage``) and the supporting records they point at. Like
Python Tutor's "Step X of Y", the replay numbers only the steps. :class:`StepIndex` finds them
without decoding JSON: the reader reads each line's ``kind`` from its first bytes, so indexing a
190,000-event trace costs a fraction of a second and no event is decoded until it is shown.

A long trace is indexed in two goes: :class:`StepIndex` with ``eager=False`` indexes only a first
chunk (enough for the first screen), and the app finishes the rest in a background thread, so a
100,000-step trace shows its first frame about as fast as a small one (toolong does the same).
Each chunk is published whole: :meth:`StepIndex.__len__` only counts steps whose records are all
in place, so the screen can read the index while it grows.

A step's turn is counted, not read: each ``turn_start`` step opens a turn, exactly like the
loop's ``turn_count`` (``State.turn_count`` in ``query.ts``'s ``while (true)``). Steps before
the first turn (the session's set-up) belong to turn 0.

How the cursor moves over the steps is :mod:`tracer.view.cursor`. Nothing here imports
Textual; the methods take and return step numbers (0-based).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable

from tracer.trace.events import STEP_KINDS, AnyEvent
from tracer.trace.reader import TraceReader

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from typing import TypeVar

    from tracer.trace.event_base import Event

    _E = TypeVar("_E", bound=Event)

#: Lines indexed per chunk when indexing in steps.
CHUNK = 20_000
#: Lines indexed before the first frame (about a hundred turns: enough for the first screen).
FIRST_CHUNK = 2_000
#: Bytes of a trace the reader finds the lines of before the first frame, then at a time: the
#: first chunk's lines and more (a line of a recorded trace is about 300 bytes).
READ_AHEAD = 1 << 20


class StepIndex:
    """The steps of a trace, found from line kinds; grows with :meth:`extend` (``--follow``)."""

    def __init__(self, reader: TraceReader, eager: bool = True) -> None:
        self.reader = reader
        self.positions = array("l")
        """Event index (in the reader) of each step."""
        self.stage_codes = array("b")
        """Stage of each step, as an index into :attr:`stage_names`."""
        self.turns = array("l")
        """Turn of each step, counted in its own loop (a subagent's loop starts at turn 1 again,
        as its records say and ``tracer show`` prints)."""
        self.group_starts = array("l", [0])
        """First step of each turn group (group 0: the set-up before the first turn). A group
        also starts where a subagent's loop begins or ends, so the timeline never mixes a
        subagent's steps into the main loop's turn."""
        self.group_depths = array("b", [0])
        """How deep in subagents each turn group is (0: the main loop)."""
        self.debug_positions = array("l")
        """Event index of each ``debug_hook`` record (the chapter's console lines)."""
        self.stage_names: list[str] = []
        self.by_stage: dict[str, array] = {}
        """The steps of each stage, in order (for "next mapping step" and the request chart)."""
        self._codes: dict[str, int] = {}
        self._scanned = 0
        self._turn = 0
        self._outer_turns: list[int] = []
        """The turn of each loop around the current one (one per open subagent)."""
        self._new_group = False
        self._count = 0
        self._request_steps: dict[int, int] = {}
        self._requests_seen = 0
        self.extend(None if eager else FIRST_CHUNK)

    def request_step(self, request_index: int) -> int | None:
        """The first resending step of request ``request_index``, if it is indexed yet.

        Every resending view asks for a neighbour's step (the pairing patch's two sides), so
        the steps are looked up once, as the index grows, not scanned again for every view:
        on a long trace that scan made the exported page quadratic."""
        steps = self.by_stage.get("resending")
        if steps is not None and self._requests_seen < len(steps):
            # The number only, from the line's JSON: checking each event whole (what showing
            # one does) made the first resending view of a 10,000-turn trace take 0.75 s.
            dict_at = getattr(self.reader, "dict_at", None)
            for step in steps[self._requests_seen :]:
                if dict_at is not None:
                    data = dict_at(self.positions[step])
                    number = data.get("request_index") if isinstance(data, dict) else None
                else:
                    number = getattr(self.event(step), "request_index", None)
                if isinstance(number, int):
                    self._request_steps.setdefault(number, step)
            self._requests_seen = len(steps)
        return self._request_steps.get(request_index)

    @property
    def complete(self) -> bool:
        """Whether every line the reader holds has been indexed (and the reader has found every
        line of the file: a reader opened with ``first`` finds them as it is asked for more)."""
        return self._scanned >= len(self.reader) and getattr(self.reader, "scanned_all", True)

    def extend(self, max_lines: int | None = None) -> int:
        """Index up to ``max_lines`` more of the reader's lines (all by default).

        Returns how many steps were added. Safe to run in one background thread while the screen
        reads the index: the new steps become visible together, at the end.
        """
        before = self._count
        kind_of = self.reader.kind_of
        reader = self.reader
        while not getattr(reader, "scanned_all", True) and (
            max_lines is None or len(reader) < self._scanned + max_lines
        ):  # the reader has not found that many lines yet: a chunk more of the file
            reader.refresh(READ_AHEAD)
        stop = len(self.reader)
        if max_lines is not None:
            stop = min(stop, self._scanned + max_lines)
        for i in range(self._scanned, stop):
            kind = kind_of(i)
            if kind == "debug_hook":
                self.debug_positions.append(i)
                continue
            if kind == "subagent_start":  # a loop of its own: its turns count from 1
                self._outer_turns.append(self._turn)
                self._turn, self._new_group = 0, True
                continue
            if kind == "subagent_end" and self._outer_turns:
                self._turn, self._new_group = self._outer_turns.pop(), True
                continue
            stage = STEP_KINDS.get(kind or "")
            if stage is None:
                continue
            if stage == "turn_start":
                self._turn += 1
                self._new_group = True
            if self._new_group:
                self._new_group = False
                if len(self.positions):  # a turn right at the top needs no empty group 0
                    self.group_starts.append(len(self.positions))
                    self.group_depths.append(len(self._outer_turns))
            code = self._codes.get(stage)
            if code is None:
                code = self._codes[stage] = len(self.stage_names)
                self.stage_names.append(stage)
                self.by_stage[stage] = array("l")
            self.by_stage[stage].append(len(self.positions))
            self.stage_codes.append(code)
            self.turns.append(self._turn)
            self.positions.append(i)  # last: a step exists once its position does
        self._scanned = stop
        self._count = len(self.positions)
        return self._count - before

    def extend_until(self, done: Callable[[], bool]) -> None:
        """Index chunk by chunk until ``done()`` or the end of the file."""
        while not done() and not self.complete:
            self.extend(FIRST_CHUNK if len(self) < FIRST_CHUNK else CHUNK)

    # -- lookups -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    def stage(self, step: int) -> str:
        return self.stage_names[self.stage_codes[step]]

    def turn(self, step: int) -> int:
        return self.turns[step]

    def event(self, step: int) -> AnyEvent:
        return self.reader[self.positions[step]]

    def event_as(self, step: int, cls: type[_E]) -> _E:
        """The event of ``step``, which the caller knows is a ``cls`` (a step's stage names its
        record class); a ``TypeError`` names the step if it is not, instead of a missing field
        failing later."""
        event = self.event(step)
        if not isinstance(event, cls):
            raise TypeError(f"step {step + 1} is a {event.kind} record, not {cls.kind}")
        return event

    def step_at_or_after(self, event_index: int) -> int:
        """The first step whose event is at or after ``event_index`` (clamped to the last)."""
        count = self._count
        return min(bisect_left(self.positions, event_index, 0, count), count - 1)

    def step_at_or_before(self, event_index: int) -> int:
        """The last step whose event is at or before ``event_index`` (clamped to the first)."""
        return max(bisect_right(self.positions, event_index, 0, self._count) - 1, 0)

    @property
    def group_count(self) -> int:
        """Turn groups whose first step is published."""
        return bisect_left(self.group_starts, self._count) if self._count else 1

    def group_of(self, step: int) -> int:
        """Which turn group a step is in (0 is the set-up)."""
        return bisect_right(self.group_starts, step) - 1

    def group_depth(self, group: int) -> int:
        """How deep in subagents a turn group is (0: the main loop)."""
        return self.group_depths[group]

    def group_range(self, group: int) -> range:
        start = self.group_starts[group]
        end = self.group_starts[group + 1] if group + 1 < self.group_count else len(self)
        return range(start, end)

    def debug_count_through(self, step: int) -> int:
        """How many ``[DEBUG]`` lines have printed once ``step`` is done.

        A hook prints right after the step it reports (``Loop turn`` after ``turn_start``,
        ``Tool result`` after ``wrapping``), so this counts the lines before the next step.
        """
        limit = self.positions[step + 1] if step + 1 < len(self) else self._scanned
        return bisect_left(self.debug_positions, limit)
