"""Every benchmark still runs: each is started, small, and must end with its figure.

The benches are not run by the tests for their numbers (a timed test on a shared machine proves
nothing), but a bench that no longer starts is a figure nobody can check: two of them once
reached into the replay app's old attributes and broke without a word. So each runs here on a
tiny input, and its last line must be the figure it exists to print. ``otlp_export`` is left
out: it has no size to turn down, and takes most of a minute.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

#: Each bench with the smallest arguments that still exercise it, and a word its figure holds.
SMALL_RUNS = [
    ("follow_latency.py", ["--turns", "3"], "follow latency"),
    ("hardening.py", ["--events", "200", "--repeat", "1", "--output-mb", "2"], "ratio"),
    ("import_speed.py", ["--runs", "1", "--process-runs", "1"], "whole tracer import process"),
    ("loop_overhead.py", ["--turns", "5", "--repeat", "1"], "ratio"),
    ("replay_latency.py", ["--turns", "30", "--repeat", "1"], "first-frame ratio"),
    ("beside_open.py", ["--turns", "20", "--repeat", "1"], "comparison open"),
    ("scaling.py", ["--small", "5", "--large", "20", "--runs", "1"], "worst ratio"),
    ("tour_planning.py", ["--repeat", "1"], "first run"),
    ("trace_size.py", ["--turns", "5", "10"], "ratio"),
    ("html_export.py", ["--turns", "10", "--repeat", "1"], "first paint"),
    ("html_export.py", ["--turns", "10", "--repeat", "1", "--beside"], "comparison page"),
    ("api_failures.py", ["--timeout", "1"], "gave up"),
    ("startup.py", ["--runs", "1", "--importtime"], "start-up"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("script", "args", "figure"), SMALL_RUNS, ids=[r[0] for r in SMALL_RUNS])
def test_the_bench_runs_and_prints_its_figure_last(
    script: str, args: list[str], figure: str
) -> None:
    if script == "html_export.py" and not _has_chromium():
        pytest.skip("the page bench draws in Debian's chromium, which is not installed")
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=BENCH.parent,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert figure in last, proc.stdout[-2000:]


def test_every_bench_is_run_here_or_said_to_be_left_out() -> None:
    scripts = {p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")}
    assert scripts == {s for s, _, _ in SMALL_RUNS} | {"otlp_export.py"}


def _has_chromium() -> bool:
    import shutil

    return shutil.which("chromium") is not None
