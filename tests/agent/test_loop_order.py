"""The loop's order, checked on the bundled recordings against query.ts 2.1.88.

In ``queryLoop`` the tools run, their results are handed to the caller, and only then comes the
max-turns check; the next ``State`` (our ``appending`` step) is built after it, and never when the
limit is passed. These tests read the committed traces, so a recording made with the old order
(append first, check after) fails here.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.reader import open_trace

RECORDINGS = sorted(RECORDINGS_DIR.glob("*.trace.jsonl")) + sorted(
    (RECORDINGS_DIR / "faults").glob("*.trace.jsonl")
)
LOOP_KINDS = ("wrapping", "max_turns_check", "appending", "turn_start", "terminal")


def _kinds_by_turn(path: object) -> dict[int, list[str]]:
    """The loop-order step kinds of each turn, in trace order."""
    turns: dict[int, list[str]] = defaultdict(list)
    with open_trace(path) as reader:  # type: ignore[arg-type]
        for event in reader:
            if event.kind in LOOP_KINDS:
                turns[getattr(event, "turn", 0)].append(event.kind)
    return turns


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name.split(".")[0])
def test_the_check_comes_before_the_next_state(path: object) -> None:
    for turn, kinds in _kinds_by_turn(path).items():
        if "appending" in kinds:
            at = kinds.index("appending")
            assert "max_turns_check" in kinds[:at], f"turn {turn}: {kinds}"
            assert "wrapping" not in kinds[at:], f"turn {turn}: a result wrapped after appending"
        if "max_turns_check" in kinds:
            assert kinds.index("max_turns_check") > max(
                (i for i, k in enumerate(kinds) if k == "wrapping"), default=-1
            ), f"turn {turn}: the check ran before every result was wrapped"


def test_past_the_limit_no_next_state_is_built() -> None:
    path = RECORDINGS_DIR / "05-max-turns.trace.jsonl"
    with open_trace(path) as reader:
        events = list(reader)
    checks = [e for e in events if e.kind == "max_turns_check"]
    last = checks[-1]
    assert last.exceeded and last.next_turn_count == last.max_turns + 1
    after = [e.kind for e in events[events.index(last) + 1 :]]
    assert "appending" not in after and "turn_start" not in after
    assert "terminal" in after
    # The last turn's results still reached the transcript: wrapped, then recorded as messages.
    last_turn = last.turn
    wrapped = [e for e in events if e.kind == "wrapping" and e.turn == last_turn]
    assert wrapped, "the last turn ran tools"
    messages = {e.uuid for e in events if e.kind == "message"}
    assert all(w.message_uuid in messages for w in wrapped)
    terminal = next(e for e in events if e.kind == "terminal")
    assert terminal.reason == "max_turns" and terminal.turn_count == last.next_turn_count
    # Every turn that went on has exactly one appending, after its check.
    appended_turns = {e.turn for e in events if e.kind == "appending"}
    assert appended_turns == {c.turn for c in checks if not c.exceeded}
