"""Scaling: every reading command on a 1,000-turn and a 10,000-turn trace; time should grow 10x.

A session of N turns holds O(N) events, and each event is written once (requests refer to the
messages before them instead of repeating them), so every command that reads a trace should take
time proportional to N. A command that compares each event with all the earlier ones would take
100x longer on a trace ten times longer; this bench catches that.

The traces are made the way a user makes them from real sessions: a synthetic Claude Code
transcript of N tool-using turns (one Read each, a one-line result) is imported with ``tracer
import claude-code``, which is timed as well. ``import api-log`` is timed on logs of N/10 turns:
an API log holds every request whole, so its *input* grows as N squared and its ratio is
reported next to the ratio of input bytes.

Each command runs in this process through :func:`tracer.cli.main`, output thrown away, best of
``--runs``. The figure is CPU time of this process (``time.process_time``), not wall time: on a
shared machine the wall clock measures the neighbours as much as the command, while CPU time still
shows what the algorithm costs. The table gives seconds and the ratio; the last line is the worst
ratio.

Run: ``python bench/scaling.py [--small 1000] [--large 10000] [--runs 1] [--only "export html"]``
(``--only``: just the commands whose label starts with it, the import that makes the traces
always timed).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tracer.cli.main import main as tracer_main

TRACE_COMMANDS: list[tuple[str, list[str]]] = [
    ("show", ["show", "{trace}"]),
    ("hooks", ["hooks", "{trace}"]),
    ("validate", ["validate", "{trace}"]),
    ("doctor", ["doctor", "{trace}"]),
    ("export md", ["export", "{trace}", "--format", "md"]),
    ("export mermaid", ["export", "{trace}", "--format", "mermaid"]),
    ("export otlp-json", ["export", "{trace}", "--format", "otlp-json"]),
    ("export html", ["export", "{trace}", "--format", "html", "-o", "{out}"]),
]


def _stamp(i: int) -> str:
    return f"2026-05-15T{9 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"


def transcript_records(turns: int) -> Iterator[dict[str, Any]]:
    """A Claude Code session: a prompt, ``turns`` calls of Read with their results, an answer."""
    common = {"sessionId": "bench", "version": "2.1.88", "cwd": "/work", "isSidechain": False}
    parent = "u-0"
    yield {
        **common,
        "type": "user",
        "uuid": parent,
        "parentUuid": None,
        "timestamp": _stamp(0),
        "message": {"role": "user", "content": "Read the notes again and again."},
    }
    for i in range(turns + 1):
        uuid = f"a-{i}"
        content: list[dict[str, Any]] = [{"type": "text", "text": f"Step {i}: one more look."}]
        last = i == turns
        if not last:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{i:08d}",
                    "name": "Read",
                    "input": {"file_path": "/work/notes.txt"},
                }
            )
        yield {
            **common,
            "type": "assistant",
            "uuid": uuid,
            "parentUuid": parent,
            "timestamp": _stamp(2 * i + 1),
            "message": {
                "id": f"msg_{i:08d}",
                "role": "assistant",
                "model": "claude-sonnet-5-5",
                "content": content,
                "stop_reason": "end_turn" if last else "tool_use",
                "usage": {"input_tokens": 100 + i, "output_tokens": 20},
            },
        }
        if last:
            return
        parent = f"u-{i + 1}"
        yield {
            **common,
            "type": "user",
            "uuid": parent,
            "parentUuid": uuid,
            "timestamp": _stamp(2 * i + 2),
            "sourceToolAssistantUUID": uuid,
            "toolUseResult": {"type": "text", "file": {"content": f"line {i}"}},
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{i:08d}", "content": f"line {i}"}
                ],
            },
        }


def api_log_records(turns: int) -> Iterator[dict[str, Any]]:
    """claude-trace pairs: request ``k`` carries the whole conversation so far."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read the notes."}]
    tools = [{"name": "Read", "description": "read", "input_schema": {"type": "object"}}]
    for i in range(turns + 1):
        last = i == turns
        content: list[dict[str, Any]] = [{"type": "text", "text": f"Step {i}."}]
        if not last:
            content.append(
                {"type": "tool_use", "id": f"toolu_{i:08d}", "name": "Read", "input": {}}
            )
        body = {"model": "claude-sonnet-5-5", "max_tokens": 4096, "tools": tools}
        body["messages"] = list(messages)
        answer = {
            "id": f"msg_{i:08d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-5-5",
            "content": content,
            "stop_reason": "end_turn" if last else "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        yield {
            "request": {"timestamp": 1000.0 + i, "url": "https://x/v1/messages", "body": body},
            "response": {"timestamp": 1000.5 + i, "status_code": 200, "body": answer},
        }
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i:08d}", "content": f"line {i}"}
        messages += [
            {"role": "assistant", "content": content},
            {"role": "user", "content": [result]},
        ]


def write_jsonl(path: Path, records: Iterator[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def timed(argv: list[str], runs: int) -> float:
    """Best CPU time of ``tracer argv`` in this process, output discarded."""
    best = float("inf")
    with open(os.devnull, "w", encoding="utf-8") as null:
        for _ in range(runs):
            # What earlier commands left behind (readers hold caches of decoded events) would
            # otherwise be walked by this command's garbage collections and billed to it.
            gc.collect()
            start = time.process_time()
            with contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
                code = tracer_main(argv)
            best = min(best, time.process_time() - start)
            if code not in (0, 1):
                sys.exit(f"tracer {' '.join(argv)} failed with exit code {code}")
    return best


def _fill(arg: str, trace: Path, out: Path) -> str:
    return arg.replace("{trace}", str(trace)).replace("{out}", str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default="", help="time only the commands starting with this")
    args = parser.parse_args()
    sizes = (args.small, args.large)
    with tempfile.TemporaryDirectory(prefix="tracer-scaling-") as tmp:
        folder = Path(tmp)
        rows: list[tuple[str, float, float, str]] = []
        traces: dict[int, Path] = {}
        import_times = []
        for n in sizes:
            transcript = write_jsonl(folder / f"s{n}.jsonl", transcript_records(n))
            traces[n] = folder / f"s{n}.trace.jsonl"
            argv = ["import", "claude-code", str(transcript), "-o", str(traces[n])]
            import_times.append(timed(argv, args.runs))
        rows.append(("import claude-code", *import_times, ""))
        for label, template in TRACE_COMMANDS:
            if not label.startswith(args.only):
                continue
            times = [
                timed([_fill(a, traces[n], folder / f"s{n}.out") for a in template], args.runs)
                for n in sizes
            ]
            rows.append((label, *times, ""))
        log_times, log_bytes = [], []
        for n in [] if not "import api-log".startswith(args.only) else (s // 10 for s in sizes):
            log = write_jsonl(folder / f"log{n}.jsonl", api_log_records(n))
            log_bytes.append(log.stat().st_size)
            argv = ["import", "api-log", str(log), "-o", str(folder / f"log{n}.trace.jsonl")]
            log_times.append(timed(argv, args.runs))
        if log_times:
            note = f"input bytes x{log_bytes[1] / log_bytes[0]:.0f}"
            label = f"import api-log ({sizes[0] // 10}/{sizes[1] // 10} turns)"
            rows.append((label, *log_times, note))
    print(f"{'command':<34} {sizes[0]:>7} turns {sizes[1]:>7} turns   ratio")
    worst = ("", 0.0)
    for label, small, large, note in rows:
        ratio = large / small if small > 0 else float("inf")
        print(f"{label:<34} {small:>11.3f}s {large:>11.3f}s {ratio:>7.1f}  {note}")
        if not note and ratio > worst[1]:
            worst = (label, ratio)
    print(f"worst ratio {worst[1]:.1f} ({worst[0]}; linear is 10, the target at most 12)")


if __name__ == "__main__":
    main()
