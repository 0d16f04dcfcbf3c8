"""The bundled recordings are exactly what the code records today.

Every scenario (and fault scenario) is recorded again and compared with its committed trace,
ignoring only what the header declares volatile (times, durations, body hashes) and the
session's temporary paths. A change to the loop that changes what it records fails here until
``tracer record --all`` is run and the new recordings are committed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tracer.files.paths import CHAPTERS_DIR, RECORDINGS_DIR
from tracer.trace.compare import first_difference

SCENARIOS = sorted((CHAPTERS_DIR / "ch12" / "scenarios").glob("*.yaml"))
FAULTS = sorted((CHAPTERS_DIR / "ch12" / "faults").glob("*.yaml"))
#: Good runs recorded only to be compared with a fault (``tracer replay FAULT --beside``).
TWINS = sorted((CHAPTERS_DIR / "ch12" / "twins").glob("*.yaml"))


def _committed(scenario: Path) -> Path:
    kind = scenario.parent.name
    folder = RECORDINGS_DIR / kind if kind in ("faults", "twins") else RECORDINGS_DIR
    return folder / f"{scenario.stem}.trace.jsonl"


@pytest.mark.parametrize("scenario", SCENARIOS + FAULTS + TWINS, ids=lambda p: p.stem)
def test_recording_matches_code(scenario: Path, recorded: Callable[[Path], Path]) -> None:
    committed = _committed(scenario)
    assert committed.exists(), f"{committed} is missing: run `tracer record --all`"
    assert first_difference(recorded(scenario), committed) is None


def test_every_recording_has_a_scenario() -> None:
    expected = {_committed(p) for p in SCENARIOS + FAULTS + TWINS}
    found = set(RECORDINGS_DIR.glob("*.trace.jsonl")) | {
        path
        for kind in ("faults", "twins")
        for path in (RECORDINGS_DIR / kind).glob("*.trace.jsonl")
    }
    assert TWINS and found == expected
