"""Follow latency: from a line Claude Code appends to its transcript to the replay's frame.

``tracer replay --follow <session.jsonl>`` imports the transcript as it grows
(:class:`tracer.importers.claude_code.live.LiveImport`, driven by the replay's poll every 0.25 s)
and shows each settled step. This bench plays a session of our own into a transcript, one turn at a
time, while the real replay app runs headless (Textual's Pilot): each time it appends the line that
settles the next request (the next call's first record), it times how long until that request
is the step on screen. The wait is the poll interval's phase plus the import and the render;
the target (issue 12) is a median of at most 250 ms, printed on the last line.

Run: ``python bench/follow_latency.py [--turns 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "claude-code"))

from make import Transcript, bash_raw, text, use  # noqa: E402 (the test data's own builder)

from tracer.importers.claude_code.live import LiveImport  # noqa: E402
from tracer.replay.factory import ReplayOptions, make_app  # noqa: E402


def session(turns: int) -> list[str]:
    """A session with ``turns`` Bash calls, one per model call, then an answer."""
    t = Transcript("2.1.39")
    parent = t.user(None, "Run each check in turn.")
    for k in range(turns):
        a = t.assistant(parent, f"msg_{k}", use(f"toolu_{k}", "Bash", command=f"check {k}"))
        parent = t.result(a, f"toolu_{k}", f"check {k} ok", bash_raw(f"check {k} ok"))
    t.assistant(parent, "msg_end", text("Every check passed."))
    return [json.dumps(r) + "\n" for r in t.records]


async def measure(turns: int) -> list[float]:
    lines = session(turns)
    delays: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "session.jsonl"
        source.write_text("".join(lines[:2]), encoding="utf-8")  # the prompt and first call
        live = LiveImport(source, Path(tmp) / "live.trace.jsonl")
        live.poll()
        app = make_app(live.output, ReplayOptions(follow=True, guide=None, feed=live.poll))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("greater_than_sign")  # the last step (Home/End scroll the panel)
            with source.open("a", encoding="utf-8") as out:
                for k in range(turns - 1):
                    out.write(lines[2 + 2 * k])  # the tool result: nothing settles yet
                    out.flush()
                    await pilot.pause(0.05)
                    requests = _requests(app)
                    out.write(lines[3 + 2 * k])  # the next call: its request is settled
                    out.flush()
                    start = time.perf_counter()
                    while _requests(app) == requests or _stage_on_screen(app) != "resending":
                        if time.perf_counter() - start > 10:  # bounded: a bench never hangs
                            raise SystemExit(f"turn {k + 1}: the request never reached the screen")
                        await asyncio.sleep(0.002)
                    delays.append(time.perf_counter() - start)
        live.finish()
    return delays


def _requests(app: Any) -> int:
    index = app.replay.index
    return sum(1 for s in range(len(index)) if index.stage(s) == "resending")


def _stage_on_screen(app: Any) -> str:
    return app.replay.index.stage(app.replay.step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    delays = asyncio.run(measure(args.turns))
    ms = sorted(d * 1000 for d in delays)
    print(
        f"{len(ms)} appended lines: min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms, "
        f"p90 {ms[int(len(ms) * 0.9)]:.0f} ms"
    )
    print(f"follow latency: median {statistics.median(ms):.0f} ms (target <= 250 ms)")


if __name__ == "__main__":
    main()
