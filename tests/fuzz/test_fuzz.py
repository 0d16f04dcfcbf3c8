"""The fast, seeded subset of the fuzzer: every command on damaged copies of real inputs.

The long run is ``python tests/fuzz/fuzz_harness.py --cases 300``; this one keeps a few cases of
each kind (and every special file) in the normal test run, so a new traceback shows up at once.
The seed is fixed: a failure here reproduces with the same case name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_harness import SPECIAL, fuzz, mutate, run, sources

KINDS = {"trace": 10, "scenario": 6, "transcript": 8, "api_log": 8}


@pytest.mark.parametrize("kind", list(KINDS))
def test_no_traceback_and_no_hang_on_damaged_input(kind: str, tmp_path: Path) -> None:
    if not sources()[kind]:
        pytest.skip(f"no {kind} sources here (the shared fixtures are absent)")
    report = fuzz(KINDS[kind], seed=13, kinds=(kind,), timeout=60, workdir=tmp_path)
    runs = sum(report.runs.values())
    assert runs >= KINDS[kind] + len(SPECIAL)
    assert report.failures == []


def test_the_harness_sees_a_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A check that cannot fail proves nothing: break ``show`` and the harness must say so."""
    import tracer.show

    def broken(reader: object) -> list[str]:
        raise KeyError("boom")

    monkeypatch.setattr(tracer.show, "show_lines", broken)
    trace = sources()["trace"][0]
    outcome = run(["show", str(trace)], timeout=30)
    assert outcome.crash is not None and outcome.crash.startswith("KeyError at ")


def test_the_harness_sees_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import tracer.show

    def stuck(reader: object) -> list[str]:
        time.sleep(30)
        return []

    monkeypatch.setattr(tracer.show, "show_lines", stuck)
    outcome = run(["show", str(sources()["trace"][0])], timeout=0.5)
    assert outcome.crash == "hang"


def test_mutations_are_reproducible_and_change_the_input() -> None:
    import random

    data = sources()["trace"][0].read_bytes()
    first = [mutate(random.Random(seed), data, "trace") for seed in range(40)]
    again = [mutate(random.Random(seed), data, "trace") for seed in range(40)]
    assert first == again
    assert sum(out != data for _, out in first) >= 30
    assert len({name for name, _ in first}) >= 8
