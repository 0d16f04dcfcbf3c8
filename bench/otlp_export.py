"""OTLP export time against trace length: 10,000 turns should cost about 10x 1,000 turns.

The export walks the events once and joins them through dictionaries (tool span by
``tool_use_id``, by the uuid of its wrapped result, turns that asked for tools); a join done by
scanning every event for every span would make it quadratic, 100x for 10x the turns. Content is
on (these are recordings), so every ``chat`` span carries its request's messages: the history
is kept in place and each message converted once, and each span holds at most
``--otlp-max-content`` bytes of it, so resending the whole history each turn stays linear too.
Traces are built by :func:`replay_latency.make_big_trace` (one recorded turn repeated). Each
size is timed best of ``--runs`` as ``tracer export --format otlp-json -o FILE`` runs it:
reading the trace (``walk``), building the spans, and writing the JSON into a file a span at a
time (``write_json``), in CPU time of this process, the kernel's part included (on a shared
machine wall-clock time mostly measures the other processes; it is printed too).
The last line is the ratio, 10,000 turns over 1,000 (target <= 12).

Run: ``python bench/otlp_export.py [--runs 3]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from replay_latency import make_big_trace

from tracer.cli.main import without_cycle_collection
from tracer.export.otlp.document import write_json
from tracer.export.walk import walk


def best_time(path: Path, runs: int) -> tuple[float, float, int]:
    best = wall = float("inf")
    out = path.with_suffix(".otlp.json")
    for _ in range(runs):
        out.unlink(missing_ok=True)
        # As `tracer export` runs it: batch commands pause the cyclic collector (see
        # tracer.cli.main.without_cycle_collection), which would otherwise re-walk the growing heap.
        with without_cycle_collection(pause=True), out.open("wb") as sink:
            start, start_wall = time.process_time(), time.perf_counter()
            write_json(walk(path), sink.write)
            best = min(best, time.process_time() - start)
            wall = min(wall, time.perf_counter() - start_wall)
    size = out.stat().st_size
    out.unlink()
    return best, wall, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        times = {}
        for turns in (1_000, 10_000):
            path = make_big_trace(Path(tmp) / f"big-{turns}.trace.jsonl", turns=turns)
            times[turns], wall, size = best_time(path, args.runs)
            print(
                f"{turns:>6} turns: {times[turns] * 1000:.0f} ms CPU ({wall * 1000:.0f} ms wall "
                f"clock), {size / 1e6:.1f} MB of OTLP/JSON"
            )
    ratio = times[10_000] / times[1_000]
    print(f"otlp export 10,000/1,000 turns time ratio: {ratio:.1f} (target <= 12)")


if __name__ == "__main__":
    main()
