"""The good run each bundled fault breaks, so ``--beside`` alone compares a fault with it.

A fault recording is a scenario run with one step broken on purpose (a result never pushed, a
malformed block, a loop that does not end). Its good twin is the bundled recording of the same
session without the fault: the same prompt, the same workspace, the same scripted answers up to
the broken step. Only the faults whose session the chapter's own recordings already hold have
one; the others are sessions of their own (the fault is the point of the recording), and
``--beside`` then needs a second trace named.
"""

from __future__ import annotations

from pathlib import Path

from tracer.paths import RECORDINGS_DIR, TRACE_SUFFIX, short_name

#: Fault → the recording it breaks (both by short name).
TWINS = {
    "faults/01-result-not-returned": "01-main-walk",
    "faults/07-max-turns": "01-main-walk",
    # No chapter recording reads calc.py: its twin is recorded for the comparison alone, from
    # chapters/ch12/twins/03-read-calc.yaml (the fault's session without the fault).
    "faults/03-malformed-result": "twins/03-read-calc",
}


def twin_of(trace: Path) -> Path | None:
    """The good twin of the bundled fault ``trace``, or None (not a fault, or none recorded)."""
    twin = TWINS.get(short_name(trace))
    if twin is None:
        return None
    path = RECORDINGS_DIR / f"{twin}{TRACE_SUFFIX}"
    return path if path.is_file() else None
