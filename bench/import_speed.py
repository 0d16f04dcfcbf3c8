"""Import speed: how fast a real Claude Code transcript becomes a trace.

Imports the largest transcript in ``../shared/fixtures/claude-code-transcripts`` (a path can be
given instead) into a temporary trace a few times and keeps the best run. An import reads and
parses every record, walks the message DAG, and rebuilds and normalizes the whole history before
every model call (as the live loop does), so its cost grows with calls x history length; events
per second is the figure, printed on the last line.

Run: ``python bench/import_speed.py [TRANSCRIPT.jsonl] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tracer.importers.claude_code import import_claude_code
from tracer.paths import ROOT

FIXTURES = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"


def largest_fixture() -> Path:
    found = sorted(FIXTURES.glob("*.jsonl"), key=lambda p: p.stat().st_size)
    if not found:
        sys.exit(f"no transcripts in {FIXTURES}: give one as an argument")
    return found[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    source = args.transcript or largest_fixture()
    best = float("inf")
    events = 0
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            start = time.perf_counter()
            report = import_claude_code(source, Path(tmp) / "bench.trace.jsonl")
            best = min(best, time.perf_counter() - start)
            events = report.counts["events"]
    size = source.stat().st_size / 1024
    print(f"source: {source.name} ({size:.0f} KB, {report.counts.get('model calls', 0)} model "
          f"calls), {events} events, best of {args.runs}: {best * 1000:.1f} ms")
    print(f"import speed: {events / best:,.0f} events/s")


if __name__ == "__main__":
    main()
