"""Trace size: does the trace grow like the conversation, not like the log of every request?

Every turn resends the whole history, so a log of full requests grows with the square of the turns
(about n/2 times the final history). The trace writes each message once and stores each request as
"the previous one plus a tail", so trace bytes ÷ final-history bytes should stay flat as sessions
grow. Target (issue 2): ≤ 3 at 10, 100 and 1,000 turns.

Final history = the loop's final ``state.messages``, each message as the loop holds it (uuid,
type, API content, and for tool results the raw ``tool_use_result``), as Claude Code keeps it in
its transcript. The table also shows the ratio to the API-only ``messages`` of the last request
(about 6 with these small results: each result is in the trace three times, raw, mapped and
wrapped, and every turn adds its steps), which stays just as flat. Sessions are recorded with
:func:`tracer.record.run.record_scenario`, exactly as ``tracer record`` writes them.

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

from _sessions import api_history_bytes, final_history_bytes, scripted_scenario

from tracer.record.run import record_scenario
from tracer.trace.reader import TraceReader


def measure(turns: int, tool: str, folder: Path) -> tuple[int, int, int, int, float]:
    """Record one session; return trace, final history, API history and full-request-log bytes,
    and the seconds it took."""
    output = folder / f"bench-{turns}.trace.jsonl"
    started = time.perf_counter()
    record_scenario(scripted_scenario(turns, tool), output)
    elapsed = time.perf_counter() - started
    reader = TraceReader(output)
    events = list(reader)
    requests = [e for e in events if e.kind == "request"]
    return (
        output.stat().st_size,
        final_history_bytes(events, reader),
        api_history_bytes(events),
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
            f"{'turns':>6} {'trace':>12} {'history':>12} {'ratio':>6} {'API msgs':>11} "
            f"{'ratio':>6} {'request log':>14} {'log/history':>11} {'time':>7}"
        )
        for turns in args.turns:
            trace, history, api, log, elapsed = measure(turns, args.tool, Path(tmp))
            ratio = trace / history
            worst = max(worst, ratio)
            print(
                f"{turns:>6} {trace:>12,} {history:>12,} {ratio:>6.2f} {api:>11,} "
                f"{trace / api:>6.2f} {log:>14,} {log / history:>11.1f} {elapsed:>6.1f}s"
            )
    verdict = "ok" if worst <= 3 else "OVER TARGET"
    print(f"worst trace/history ratio: {worst:.2f} (target <= 3, {verdict})")


if __name__ == "__main__":
    main()
