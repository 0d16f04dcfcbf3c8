"""Opening ``tracer replay A --beside B``: how long until the first frame, small and big.

The comparison reads both traces whole before it draws (the alignment needs every step's key:
:func:`tracer.compare.keys.step_keys`), so its opening grows with the traces, unlike the replay's;
the doctor, which costs more than the alignment, runs before the first frame only on a trace of
at most ``NOW_LIMIT`` events, and in the background on a bigger one. The traces are made as
``replay_latency.py`` makes them (the main walk's turn 2 repeated), each compared with itself.

The last line printed holds both times, the ratio, and the cost per 1,000 turns.

Run: ``python bench/beside_open.py [--turns 1000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from replay_latency import make_big_trace

from tracer.replay.beside_command import make_beside_app

SMALL_TURNS = 10


def first_frame(path: Path) -> float:
    """Seconds from opening the pair to the comparison's first frame (headless, 80x24)."""
    start = time.perf_counter()
    app = make_beside_app(path, path, lang="en")

    async def draw() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()

    asyncio.run(draw())
    # The background doctor may still run (a big trace); the first frame is what is measured.
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per trace (median kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = make_big_trace(Path(tmp) / "small.trace.jsonl", SMALL_TURNS)
        big = make_big_trace(Path(tmp) / "big.trace.jsonl", args.turns)
        times = {}
        for name, path in (("small", small), ("big", big)):
            times[name] = statistics.median(first_frame(path) for _ in range(args.repeat))
            print(f"{name}: {path.stat().st_size:,} bytes, first frame {times[name]:.3f} s")
    ratio = times["big"] / times["small"]
    per_thousand = (times["big"] - times["small"]) / max(args.turns - SMALL_TURNS, 1) * 1000
    print(
        f"comparison open: {SMALL_TURNS} turns {times['small']:.2f} s, {args.turns} turns "
        f"{times['big']:.2f} s, ratio {ratio:.1f}x, {per_thousand:.2f} s per 1,000 turns"
    )


if __name__ == "__main__":
    main()
