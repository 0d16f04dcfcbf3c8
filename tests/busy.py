"""Run a command with the machine kept busy: the proof that the suite never races the clock.

    python tests/busy.py [--loops N] -- COMMAND [ARGS...]

starts ``N`` (default 2) processes that do nothing but spin, one per core of a 2-core laptop
building something else, runs ``COMMAND`` beside them, stops them, and exits with the command's
own exit code. ``.ci/run`` runs the README's test command this way once before its own run, so
that a test which only passes on an idle machine (one that waits 0.2 s for something and then
asserts it happened) fails CI instead of failing a user.

The loops are bounded twice: they are killed when the command ends, and each one also stops by
itself after ``--limit`` seconds (default an hour), so an interrupted run leaves nothing behind.
The load average before and after is printed to stderr, to put beside the timing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

SPIN = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    pass\n"


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="busy.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--loops", type=int, default=2, help="busy processes (default 2)")
    parser.add_argument(
        "--limit", type=float, default=3600, help="seconds each loop spins at most (default 3600)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    loops = [
        subprocess.Popen([sys.executable, "-c", SPIN.format(limit=args.limit)])
        for _ in range(max(args.loops, 0))
    ]
    print(f"busy: {len(loops)} spinning loops; load before: {_load()}", file=sys.stderr)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()
        print(f"busy: loops stopped; load after: {_load()}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
