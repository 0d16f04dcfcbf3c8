"""Pair the steps of two runs, turn by turn and step of the journey by step, and say what differs.

Each trace arrives as a list of :class:`Key`, one per step: the turn of the main loop it belongs
to (a subagent's steps count in the turn of the Task call that ran them), its stage
(``mapping``, ``wrapping``, ``appending``, ``resending``, …) and a digest of what it recorded.
Turns are paired by number (turn 3 with turn 3, the set-up with the set-up); inside a pair of
turns the stages are aligned as two sequences are by ``diff`` (:class:`difflib.SequenceMatcher`,
no junk heuristic), so a step one run has and the other lacks (the wrapping a dropped result
never had) becomes a row with one side empty, and the steps around it stay paired. A pair whose
digests differ is a changed row (a malformed block, a request that is not the same).

The cost is linear in the steps for runs of similar turns (each turn is a few dozen steps), so
two 10,000-turn traces align in well under a second. Pure: no I/O, nothing from tracer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import groupby
from typing import Literal

Change = Literal["same", "changed", "only_a", "only_b"]


@dataclass(frozen=True, slots=True)
class Key:
    """What the alignment knows of one step."""

    turn: int
    """The main loop's turn (0: the set-up before the first)."""
    stage: str
    digest: str
    """Equal for two steps that recorded the same thing."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the comparison: a step of A, of B, or of both."""

    a: int | None
    b: int | None
    turn: int
    stage: str
    change: Change


def _turns(keys: Sequence[Key]) -> dict[int, list[int]]:
    """Turn → the steps in it, in order (a turn split by nothing else stays one group)."""
    out: dict[int, list[int]] = {}
    for turn, steps in groupby(range(len(keys)), key=lambda s: keys[s].turn):
        out.setdefault(turn, []).extend(steps)
    return out


def _pair_turn(
    a_keys: Sequence[Key], b_keys: Sequence[Key], a: list[int], b: list[int], turn: int
) -> list[Row]:
    rows: list[Row] = []
    matcher = SequenceMatcher(
        None, [a_keys[s].stage for s in a], [b_keys[s].stage for s in b], autojunk=False
    )
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            for sa, sb in zip(a[a0:a1], b[b0:b1], strict=True):
                same = a_keys[sa].digest == b_keys[sb].digest
                rows.append(Row(sa, sb, turn, a_keys[sa].stage, "same" if same else "changed"))
            continue
        # Steps of one side only (or different stages in the same place): each on its own row,
        # A's first, as a diff lists what was removed before what was added.
        rows += [Row(s, None, turn, a_keys[s].stage, "only_a") for s in a[a0:a1]]
        rows += [Row(None, s, turn, b_keys[s].stage, "only_b") for s in b[b0:b1]]
    return rows


def align(a_keys: Sequence[Key], b_keys: Sequence[Key]) -> list[Row]:
    """The rows of the comparison of A and B: every step of each exactly once, in turn order."""
    a_turns, b_turns = _turns(a_keys), _turns(b_keys)
    rows: list[Row] = []
    for turn in sorted(set(a_turns) | set(b_turns)):
        rows += _pair_turn(a_keys, b_keys, a_turns.get(turn, []), b_turns.get(turn, []), turn)
    return rows


@dataclass(frozen=True, slots=True)
class Summary:
    """How many rows of each kind, and the rows that differ (in order)."""

    same: int
    changed: int
    only_a: int
    only_b: int
    differences: list[int]
    """Row numbers of every row that is not ``same``."""

    @property
    def identical(self) -> bool:
        return not self.differences


def summarize(rows: Sequence[Row]) -> Summary:
    counts = {"same": 0, "changed": 0, "only_a": 0, "only_b": 0}
    for row in rows:
        counts[row.change] += 1
    differences = [n for n, row in enumerate(rows) if row.change != "same"]
    return Summary(
        counts["same"], counts["changed"], counts["only_a"], counts["only_b"], differences
    )
