"""Loop overhead: what does tracing cost a session?

The same 1,000-turn scripted session (an instant tool: Glob on an empty folder) runs twice, once
with every event written by a :class:`~tracer.trace.writer.TraceWriter` to a temporary file and
once with a no-op ``emit``. Everything else is identical: the real SDK, the scripted SSE transport,
the loop, the tool. Target (issue 2): traced ÷ untraced wall time ≤ 1.10.

Runs alternate (untraced then traced, then traced then untraced, …) and the best of each is
kept, so neither warm-up nor a slow moment of the machine lands on one side only. Resending the
whole history makes each turn cost more than the last (the SDK copies and encodes every body), so
at 1,000 turns the work of the loop itself, not the trace, sets the time.

Run: ``python bench/loop_overhead.py [--turns 1000] [--repeat 3]``; the last line printed is the
ratio.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sessions import run_session, scripted_scenario

from tracer import __version__
from tracer.trace.events import Event, Header
from tracer.trace.writer import TraceWriter


def _no_op(event: Event) -> Event:
    return event


class TimedWriter:
    """A trace writer that also adds up the time spent inside it (encoding, writing, flushing)."""

    def __init__(self, writer: TraceWriter) -> None:
        self.writer = writer
        self.seconds = 0.0

    def __call__(self, event: Event) -> Event:
        started = time.perf_counter()
        stamped = self.writer(event)
        self.seconds += time.perf_counter() - started
        return stamped


WRITER_SECONDS: list[float] = []


def timed(turns: int, traced: bool, folder: Path) -> float:
    scenario = scripted_scenario(turns, tool="Glob")
    gc.collect()
    if traced:
        header = Header(
            created="bench",
            source={"kind": "scenario", "name": scenario.name},
            tracer_version=__version__,
        )
        with TraceWriter(folder / "overhead.trace.jsonl", header) as writer:
            timed_writer = TimedWriter(writer)
            started = time.perf_counter()
            terminal: Any = run_session(scenario, timed_writer)
            elapsed = time.perf_counter() - started
            WRITER_SECONDS.append(timed_writer.seconds)
    else:
        started = time.perf_counter()
        terminal = run_session(scenario, _no_op)
        elapsed = time.perf_counter() - started
    assert terminal.reason == "completed" and terminal.turn_count == turns + 1
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the SDK warns about the scripted model name on every call
    plain: list[float] = []
    traced: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tracer-bench-") as tmp:
        for run in range(1, args.repeat + 1):
            # Swap which side goes first each round, so warm-up favours neither.
            for side in (False, True) if run % 2 else (True, False):
                (traced if side else plain).append(timed(args.turns, side, Path(tmp)))
            print(f"run {run}: untraced {plain[-1]:.2f}s, traced {traced[-1]:.2f}s")
    ratio = min(traced) / min(plain)
    verdict = "ok" if ratio <= 1.10 else "OVER TARGET"
    print(f"best untraced {min(plain):.2f}s, best traced {min(traced):.2f}s, {args.turns} turns")
    # Wall times of long runs wander by several percent on a busy machine; the time spent inside
    # the writer is the cost of tracing itself, measured directly.
    writing = min(WRITER_SECONDS)
    print(
        f"time inside the trace writer: {writing:.2f}s per run "
        f"({writing / min(plain):.1%} of the untraced run)"
    )
    print(f"traced/untraced wall-time ratio: {ratio:.3f} (target <= 1.10, {verdict})")


if __name__ == "__main__":
    main()
