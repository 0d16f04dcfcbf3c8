"""Start-up: how much CPU ``tracer --version`` and ``tracer import --help`` cost.

A command that only prints its version or its help should cost little more than starting Python
itself: every module the command line imports before it can answer is paid on every run (a
folder import, a script calling ``tracer show`` in a loop). :mod:`tracer.cli.main` imports only the
module of the command named, and those modules import their heavy parts (Textual, the SDK,
OTLP, orjson, YAML) only when the command runs.

Each command is started as its own process (``python -c`` with the console script's own code,
so no installed script is needed) ``--runs`` times; its CPU time (user + system, from
``getrusage`` of the finished child) is kept, the best and the median printed, beside a bare
``python -c pass`` (the interpreter's own start-up, ours to add to, not to cut). The imports a
command pays for are those ``python -X importtime`` lists, sorted by their cumulative time
(``--importtime`` prints the ten largest of ``tracer import --help``; a module loaded through
``importlib.import_module``, as each command's is, is not listed itself, only what it imports).
Before it, when the shared fixtures are there, the whole process of importing the largest real
transcript, over a ``json.loads`` one-liner's process on the same file (start-up included: what
a user waits for). The last line is the figure: the slower command's best CPU time, and the
target (60 ms).

Run: ``python bench/startup.py [--runs 20] [--importtime]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: What the ``tracer`` console script runs (see its entry point), with the command's arguments.
SCRIPT = ["-c", "import re, sys; from tracer.cli.console import script; sys.exit(script())"]
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "tracer --version": [*SCRIPT, "--version"],
    "tracer import --help": [*SCRIPT, "import", "--help"],
}
TARGET_MS = 60
FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "claude-code-transcripts"


#: Installed, tracer's modules are byte-compiled (pip writes the .pyc files); a checkout run with
#: PYTHONDONTWRITEBYTECODE set would compile every module from source on every start.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_of(args: list[str]) -> float:
    """CPU seconds (user + system) one run of ``python args`` took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env=ENV,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def largest_imports(args: list[str], count: int) -> list[str]:
    """The ``count`` imports with the largest cumulative time, as ``-X importtime`` reports."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    rows = []
    for line in run.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return [f"{us / 1000:7.1f} ms {name}" for us, name in sorted(rows, reverse=True)[:count]]


def _largest_transcript() -> Path | None:
    """The largest real transcript of the shared fixtures, if they are there."""
    found = sorted(FIXTURES.glob("*.jsonl"), key=lambda p: p.stat().st_size)
    return found[-1] if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    best: dict[str, float] = {}
    for name, argv in COMMANDS.items():
        cpu_of(argv)  # once unmeasured: the files are in the page cache, .pyc written
        times = sorted(cpu_of(argv) for _ in range(args.runs))
        best[name] = times[0]
        print(
            f"{name:<22} best {times[0] * 1000:5.1f} ms CPU, "
            f"median {statistics.median(times) * 1000:5.1f} ms ({args.runs} runs)"
        )
    source = _largest_transcript()
    if source is not None:
        with tempfile.TemporaryDirectory() as tmp:
            whole = [*SCRIPT, "import", "claude-code", str(source), "-o", f"{tmp}/t.jsonl"]
            bare = ["-c", f"import json\nfor x in open({str(source)!r}, 'rb'): json.loads(x)"]
            cpu_of(whole)
            # One after the other, as bench/import_speed.py times them: a busy stretch of the
            # machine then slows both, not only whichever ran in it (taken five in a row, the
            # best of each once came from different stretches, and said 3.1x for 2.7x).
            took, parse = float("inf"), float("inf")
            for _ in range(max(10, args.runs // 2)):
                took, parse = min(took, cpu_of(whole)), min(parse, cpu_of(bare))
        print(
            f"the whole process of tracer import claude-code {source.name}: {took * 1000:.1f} ms "
            f"CPU, {took / parse:.2f}x a json.loads one-liner's process ({parse * 1000:.1f} ms)"
        )
    if args.importtime:
        print("largest imports of tracer import --help (cumulative):")
        for row in largest_imports(COMMANDS["tracer import --help"], 10):
            print("  " + row)
    slower = max(best["tracer --version"], best["tracer import --help"])
    print(
        f"start-up: {slower * 1000:.1f} ms CPU at most, {best['python -c pass'] * 1000:.1f} ms "
        f"of it Python's own (the target is at most {TARGET_MS} ms)"
    )


if __name__ == "__main__":
    main()
