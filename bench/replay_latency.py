"""Replay latency: first frame, keypress-to-step, and memory, on a small and a huge trace.

The huge trace is made here (never committed): the bundled main walk's turn 2 repeated 10,000
times with fresh sequence numbers, turns, uuids and request indices, so the file has the shape of
a real 10,000-turn session (about 190,000 events). The replay reads traces lazily, like toolong:
opening indexes line offsets and step kinds, and each step decodes only the events it shows, so
opening the big one should cost about what opening the small one does.

Targets (issue 4): first frame of the big trace <= 2 x the small one; median keypress-to-rendered
step latency <= 16 ms on both (measured through Textual's Pilot); peak memory of the big one
<= 300 MB. The last line printed holds the first-frame ratio and both medians, the CPU time
each step took (which a busy machine does not inflate, unlike the wall time) and the load.

Run: ``python bench/replay_latency.py [--turns 10000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tracer.files.paths import MAIN_RECORDING


def make_big_trace(path: Path, turns: int = 10_000, source: Path = MAIN_RECORDING) -> Path:
    """Write a synthetic ``turns``-turn trace to ``path``, built by repeating one recorded turn."""
    lines = source.read_text(encoding="utf-8").splitlines()
    header, events = lines[0], [json.loads(line) for line in lines[1:]]
    prologue = [e for e in events if e["turn"] == 0 or (e["turn"] == 1)]
    middle = [e for e in events if e["turn"] == 2]
    ending = [e for e in events if e["turn"] == 4]
    # Turn 3's request resends turn 2's messages: the shape of every later copied request's tail.
    next_tail = next(e["tail"] for e in events if e["kind"] == "request" and e["turn"] == 3)
    seq = 0
    renumbered: dict[int, int] = {}  # old seq -> new seq, for the references messages hold
    with path.open("w", encoding="utf-8") as out:
        out.write(header + "\n")

        def emit(event: dict[str, Any]) -> None:
            nonlocal seq
            seq += 1
            renumbered[event["seq"]] = seq
            event["seq"] = seq
            for ref in ("tool_use_result_seq", "block_seq"):
                if event.get(ref):
                    event[ref] = renumbered[event[ref]]
            out.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")

        for event in prologue:
            emit(dict(event))
        for turn in range(2, turns):
            for event in json.loads(json.dumps(middle)):
                _rename(event, turn, next_tail)
                _renumber(event, turn)
                emit(event)
        for event in ending:
            event = dict(event)
            _renumber(event, turns)
            if event["kind"] == "request":  # it resends the last copied turn's messages
                event["tail"] = [
                    {
                        "role": ref["role"],
                        "parts": [[_uuid(u, turns - 1), i] for u, i in ref["parts"]],
                    }
                    for ref in next_tail
                ]
            emit(event)
    return path


def _uuid(uuid: str, turn: int) -> str:
    """Turn ``turn``'s copy of a uuid (turn 1 keeps the recorded ones)."""
    return uuid if turn <= 1 else f"{uuid[:-6]}{turn:06d}"


def _rename(event: dict[str, Any], turn: int, next_tail: list[dict[str, Any]]) -> None:
    """Give a copied turn-2 event fresh uuids; a request's tail points at the previous turn's."""
    for key in ("uuid", "source_tool_assistant_uuid", "message_uuid"):
        if isinstance(event.get(key), str):
            event[key] = _uuid(event[key], turn)
    for key in ("assistant_uuids", "new_uuids"):
        if key in event:
            event[key] = [_uuid(u, turn) for u in event[key]]
    if event["kind"] == "request" and turn > 2:
        event["tail"] = [
            {"role": ref["role"], "parts": [[_uuid(u, turn - 1), i] for u, i in ref["parts"]]}
            for ref in next_tail
        ]


def _renumber(event: dict[str, Any], turn: int) -> None:
    """Give a copied event the turn's numbers (turn, request index, counts)."""
    shift = turn - 2
    event["turn"] = turn
    if "request_index" in event:
        event["request_index"] = turn
    if event.get("prefix_request"):
        event["prefix_request"] = turn - 1
    if event["kind"] == "request":
        event["prefix_len"] = 1 + 2 * (shift)
        event["message_count"] = 3 + 2 * shift
        event["internal_count"] = 7 + 4 * shift
    if event["kind"] == "turn_start":
        event["message_count"] = 7 + 4 * shift
    if event["kind"] == "appending":
        event["before_count"] = 7 + 4 * shift
        event["after_count"] = 11 + 4 * shift
        event["api_before_count"] = 3 + 2 * shift
        event["api_after_count"] = 5 + 2 * shift
    if event["kind"] == "max_turns_check":
        event["next_turn_count"] = turn + 1
        event["max_turns"] = None
    if event["kind"] == "debug_hook" and event["hook"] == "loop_turn":
        count = 7 + 4 * shift
        event["line"] = f"[DEBUG] Loop turn: {turn} messages: {count}"
    if event["kind"] == "terminal":
        event["turn_count"] = turn


#: Keys pressed in the latency run: steps, turns and stations, as a reader would.
KEYS = ["right"] * 40 + ["left"] * 10 + ["]"] * 15 + ["["] * 5 + ["1", "2", "3", "4"] * 5


def measure(path: Path, start_fraction: float) -> dict[str, float]:
    """In this process: time to first frame, then the median keypress-to-rendered latency.

    Pilot's own waits (it sleeps in 20 ms slices until the app is idle) would swamp a 16 ms
    budget, so the clock runs inside the app: from the moment the key event reaches it to the
    moment the next frame is composed (``App._display``, which a headless app still calls
    with the finished compositor update), Textual's frame pacing included.
    """
    t0 = time.perf_counter()
    from textual import events

    from tracer.replay.app import ReplayApp
    from tracer.replay.options import ReplayOptions
    from tracer.trace.reader import TraceReader
    from tracer.view.cursor import locate
    from tracer.view.state import ReplayState
    from tracer.view.steps import READ_AHEAD, StepIndex

    imported = time.perf_counter()
    result: dict[str, float] = {}
    samples: list[float] = []
    first_frame: list[float] = []

    cpu_samples: list[float] = []

    class TimedApp(ReplayApp):
        key_at: float | None = None
        key_cpu = 0.0

        async def on_event(self, event: events.Event) -> None:
            if isinstance(event, events.Key):
                self.key_at, self.key_cpu = time.perf_counter(), time.process_time()
            await super().on_event(event)

        def _display(self, screen: Any, renderable: Any) -> None:
            super()._display(screen, renderable)
            if renderable is None:
                return
            now = time.perf_counter()
            if not first_frame:
                first_frame.append(now)
            if self.key_at is not None:
                samples.append((now - self.key_at) * 1000)
                # The process's own CPU time for the step: what a busy machine cannot inflate
                # (the wall time above waits for the CPU too, and for Textual's next frame).
                cpu_samples.append((time.process_time() - self.key_cpu) * 1000)
                self.key_at = None

    async def run() -> None:
        opened = time.perf_counter()
        # As ``tracer replay TRACE`` opens it (replay.factory): the reader finds the first
        # megabyte's lines, the index takes the first chunk of them, the rest after the frame.
        index = StepIndex(TraceReader(path, first=READ_AHEAD), eager=False)
        step = locate(index)  # the first step, as ``tracer replay TRACE`` opens
        app = TimedApp(ReplayState(index, step), ReplayOptions(lang="en"))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            result["first_frame_s"] = first_frame[0] - opened
            await app.workers.wait_for_complete()  # the rest of the index, in the background
            result["indexed_s"] = time.perf_counter() - opened
            app.replay.go(int((len(index) - 1) * start_fraction))  # deep into the session
            await pilot.pause()
            for key in KEYS:
                await pilot.press(key)
                await pilot.pause()
            result["median_ms"] = statistics.median(samples)
            result["median_cpu_ms"] = statistics.median(cpu_samples)
            result["keys"] = len(samples)
            result["steps"] = len(index)

    asyncio.run(run())
    result["import_s"] = imported - t0
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def measure_in_child(path: Path, start_fraction: float, repeat: int) -> dict[str, float]:
    """Run :func:`measure` ``repeat`` times, each in a fresh interpreter (so caches and memory
    start equal), and keep the median of each figure: a busy machine skews single runs."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), "--start", str(start_fraction)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per trace (median kept)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--start", type=float, default=0.5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.start)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        # A private copy: the bundled recording may be re-recorded while we measure.
        small_path = Path(tmp) / MAIN_RECORDING.name
        shutil.copyfile(MAIN_RECORDING, small_path)
        big = make_big_trace(Path(tmp) / "big.trace.jsonl", args.turns, small_path)
        size_mb = big.stat().st_size / 1e6
        small = measure_in_child(small_path, 0.0, args.repeat)
        large = measure_in_child(big, 0.5, args.repeat)
    for name, r in (("small (bundled)", small), (f"big ({args.turns} turns)", large)):
        print(
            f"{name}: {int(r['steps'])} steps, first frame {r['first_frame_s'] * 1000:.0f} ms "
            f"(fully indexed {r['indexed_s'] * 1000:.0f} ms), "
            f"median step {r['median_ms']:.1f} ms ({r['median_cpu_ms']:.1f} ms of CPU), "
            f"peak RSS {r['peak_rss_mb']:.0f} MB"
        )
    print(f"big trace file: {size_mb:.0f} MB")
    ratio = large["first_frame_s"] / small["first_frame_s"]
    load = os.getloadavg()[0]
    print(
        f"first-frame ratio {ratio:.2f} (target <= 2); median keypress-to-step "
        f"{small['median_ms']:.1f} ms small, {large['median_ms']:.1f} ms big (target <= 16; "
        f"CPU {small['median_cpu_ms']:.1f} and {large['median_cpu_ms']:.1f} ms); "
        f"big peak RSS {large['peak_rss_mb']:.0f} MB (target <= 300); load {load:.1f}"
    )


if __name__ == "__main__":
    main()
