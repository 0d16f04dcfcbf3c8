"""Trace size: does the trace grow like the conversation, not like the log of every request?

Every turn resends the whole history, so a log of full requests grows with the square of the turns
(about n/2 times the final history). The trace writes each message once and stores each request as
"the previous one plus a tail", so trace bytes ÷ final-history bytes should stay flat as sessions
grow. Target (issue 2): ≤ 3 at 10, 100 and 1,000 turns.

Final history = the ``messages`` JSON of the last request body. Sessions are recorded with
:func:`tracer.record.record_scenario`, exactly as ``tracer record`` writes them.

Run: ``python bench/trace_size.py [--turns 10 100 1000] [--tool Read|Glob]``; the last line printed
is the worst ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sessions import final_history_bytes, scripted_scenario

from tracer.record import record_scenario
from tracer.trace.reader import TraceReader


def measure(turns: int, tool: str, folder: Path) -> tuple[int, int, int, float]:
    """Record one session; return (trace bytes, final history bytes, full-request-log bytes, s)."""
    output = folder / f"bench-{turns}.trace.jsonl"
    started = time.perf_counter()
    record_scenario(scripted_scenario(turns, tool), output)
    elapsed = time.perf_counter() - started
    events = list(TraceReader(output))
    requests = [e for e in events if e.kind == "request"]
    return (
        output.stat().st_size,
        final_history_bytes(events),
        sum(r.bytes for r in requests),
        elapsed,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--tool", choices=["Read", "Glob"], default="Read")
    args = parser.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="tracer-bench-") as tmp:
        print(
            f"{'turns':>6} {'trace':>12} {'history':>12} {'ratio':>6} {'request log':>14} "
            f"{'log/history':>11} {'time':>7}"
        )
        for turns in args.turns:
            trace, history, log, elapsed = measure(turns, args.tool, Path(tmp))
            ratio = trace / history
            worst = max(worst, ratio)
            print(
                f"{turns:>6} {trace:>12,} {history:>12,} {ratio:>6.2f} {log:>14,} "
                f"{log / history:>11.1f} {elapsed:>6.1f}s"
            )
    verdict = "ok" if worst <= 3 else "OVER TARGET"
    print(f"worst trace/history ratio: {worst:.2f} (target <= 3, {verdict})")


if __name__ == "__main__":
    main()
