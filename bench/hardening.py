"""What the hardening of issue 13 costs, and the one speed promise it makes.

Three figures:

1. ``setsid sleep 1000 & sleep 1`` through the real Bash tool: the escaped child holds the
   output open, yet the call must end when the shell does (target: about one second; before
   issue 13 it never ended).
2. The price of a sandbox: the same trivial command run plainly, with ``unshare`` and with
   ``bwrap`` (each where this machine can start it), best of ``--repeat``.
3. The price of redaction by value: writing ``--events`` events with seven secrets known, divided
   by writing them with none (target: ≤ 1.5).

Run: ``python bench/hardening.py [--events 20000] [--repeat 5]``; the last line printed is the
redaction ratio.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tracer.agent.sandbox import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.trace.events import DebugHook, Header, ToolFinished
from tracer.trace.redact import Redactor
from tracer.trace.writer import TraceWriter

SECRETS = {
    "sk-ant-bench-0123456789abcdef": "ANTHROPIC_API_KEY",
    "postgres://app:pw-0123456@db/app": "DATABASE_URL",
    "pw-0123456": "DATABASE_URL",
    "https://abc0123@o1.ingest.sentry.io/1": "SENTRY_DSN",
    "eyJhbGciOi.eyJqb2IiOi.sig": "CI_JOB_JWT",
    "correct-horse-battery": "MY_PASSWD",
    "ghp_0123456789abcdefghij": "GH_PAT",
}


def _escape_seconds(workspace: Path) -> float:
    started = time.perf_counter()
    BashTool().call({"command": "setsid sleep 1000 & sleep 1"}, ToolContext(workspace=workspace))
    return time.perf_counter() - started


def _command_ms(workspace: Path, kind: str | None, repeat: int) -> float | None:
    walls = find_sandbox(choice=kind) if kind else None
    if kind and walls is None:
        return None
    ctx = ToolContext(workspace=workspace, sandbox=walls)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        BashTool().call({"command": "true"}, ctx)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def _write_seconds(folder: Path, redact: Redactor, events: int) -> float:
    header = Header(created="2026-01-01T00:00:00Z", source={"kind": "bench"}, tracer_version="0")
    output = {"stdout": "line of ordinary output\n" * 40, "stderr": "", "exit_code": 0}
    started = time.perf_counter()
    with TraceWriter(folder / "bench.trace.jsonl", header, redact=redact) as writer:
        for i in range(events):
            if i % 2:
                writer(DebugHook(turn=i, hook="loop_turn", line=f"[DEBUG] Loop turn: {i}"))
            else:
                writer(
                    ToolFinished(
                        turn=i,
                        tool_use_id=f"toolu_{i}",
                        tool="Bash",
                        input={"command": "ls -la"},
                        output=output,
                        is_error=False,
                    )
                )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"setsid sleep 1000 & sleep 1: {_escape_seconds(folder):.2f} s (target: about 1 s)")
        for kind in (None, "unshare", "bwrap"):
            ms = _command_ms(folder, kind, args.repeat)
            shown = "not available here" if ms is None else f"{ms:.1f} ms"
            print(f"Bash 'true' {kind or 'without a sandbox'}: {shown}")
        # Alternate the two, keeping the best of each, so a busy moment hits neither alone.
        plain = secret = float("inf")
        for _ in range(args.repeat):
            plain = min(plain, _write_seconds(folder, Redactor({}), args.events))
            secret = min(secret, _write_seconds(folder, Redactor(SECRETS), args.events))
    print(f"writing {args.events} events: {plain * 1000:.0f} ms plain, {secret * 1000:.0f} ms")
    print(f"redaction overhead ratio {secret / plain:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
