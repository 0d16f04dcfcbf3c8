"""The good run each bundled fault breaks, so ``--beside`` alone compares a fault with it.

A fault recording is a scenario run with one step broken on purpose (a result never pushed, a
malformed block, a loop that does not end). Its good twin is the same session without the fault:
a scenario in ``chapters/ch12/twins/`` with the fault's prompt, workspace, permissions and
scripted answers, minus the key under ``faults:`` (or the setting) that plants the bug. It is
recorded into ``recordings/twins/`` by ``tracer record --all`` and checked like every bundled
recording (``tests/test_recordings.py``). The two runs therefore agree step for step up to the
broken one and differ from there: the wrapping step fault 01 skips, the mapping step where 02,
03 and 04 damage the block, the follow_up step 05 keeps true, the max_turns check 07 trips, the
wrapping step where 08 puts the feedback first. From the broken step on, the twin's scripted
answers are what the model says when it sees the good run (an answer instead of a retry).

Fault 07's setting is the whole session's (max_turns 2, the twin's 5), so its max_turns check
differs from turn 1 on, where both pass; the runs part at turn 2's check.

Fault 06 has no twin. Nothing in its loop is broken: the model asks for the same call again
and again, and the loop does what it should with each. There is no key to leave out, so a
"good" run would be another script, a different session rather than the same one without a
fault; ``--beside`` on it asks for a second trace to be named.

Nothing in Claude Code corresponds: this is tracer's teaching aid for the chapter's common
errors (常见错误与检查方法).
"""

from __future__ import annotations

from pathlib import Path

from tracer.files.paths import RECORDINGS_DIR, TRACE_SUFFIX, resolve_trace, short_name

#: Fault → the recording of its good twin (both by short name). Every bundled fault but 06.
TWINS = {
    "faults/01-result-not-returned": "twins/01-status-and-diff",
    "faults/02-tool-use-id-mismatch": "twins/02-diff-once",
    "faults/03-malformed-result": "twins/03-read-calc",
    "faults/04-malformed-result-error-flag": "twins/04-cat-notes",
    "faults/05-loop-not-ending": "twins/05-diff-and-answer",
    # 06-loop-not-ending-repeat: none (the model repeats itself; the loop is not broken).
    "faults/07-max-turns": "twins/07-enough-turns",
    "faults/08-api-invariants": "twins/08-diff-with-feedback",
}

#: The bundled faults without a twin, and why (said where --beside alone is refused).
NO_TWIN = {
    "faults/06-loop-not-ending-repeat": (
        "the model repeats one call; the loop is not broken, so there is no fault to leave out"
    ),
}


def twin_of(trace: Path) -> Path | None:
    """The good twin of the bundled fault ``trace``, or None (not a fault, or none recorded)."""
    twin = TWINS.get(short_name(trace))
    if twin is None:
        return None
    path = RECORDINGS_DIR / f"{twin}{TRACE_SUFFIX}"
    return path if path.is_file() else None


def no_twin(trace: Path | str) -> str:
    """The one line ``--beside`` alone says for ``trace`` when :func:`twin_of` finds none."""
    why = NO_TWIN.get(short_name(resolve_trace(trace)))
    because = f" ({why})" if why else ""
    return f"{trace}: no good twin is bundled for it{because}; name one: --beside B"
