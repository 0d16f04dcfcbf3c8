"""What the hardening of issue 13 costs, and the one speed promise it makes.

The figures:

1. ``setsid sleep 1000 & sleep 1`` through the real Bash tool: the escaped child holds the
   output open, yet the call must end when the shell does (target: about one second; before
   issue 13 it never ended).
2. The price of the walls per Bash call, best of ``--repeat``: the command bare (no limits),
   under the limits (``prlimit``, and a pids cgroup where one can be made), under a bare
   ``unshare`` (user, PID, mount and network namespaces: the fallback issue 20 removed, for
   comparison), and in the full bwrap sandbox as tracer starts it (uid nobody without
   capabilities, seccomp filter, limits).
3. Memory of a recording whose one command prints ``--output-mb`` MB (default 1024), beside one
   that prints a tenth of it, each in a fresh interpreter: peak RSS (target: under 200 MB, and
   flat in the output size), and the trace's size.
4. Grep's bound: ``^(a+)+$`` over a line of forty ``a`` and a ``b`` (exponential backtracking)
   with the deadline set to 2 s: the call must end at the deadline, not run for ever; and
   Grep's cost on an ordinary workspace of 200 files (the child process it starts).
5. The price of redaction by value: writing ``--events`` events with seven secrets known, divided
   by writing them with none (target: ≤ 1.5).
6. The sandbox's price per Bash call: the best bwrap run divided by the best bare one, the two
   alternated (target: ≤ 5; issue 31 put bwrap under the session's own uid, with ``setpriv``,
   and a memory cgroup beside the pids one).

Run: ``python bench/hardening.py [--events 20000] [--repeat 5] [--output-mb 1024]``; the last
line printed is the sandbox's cost ratio.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tracer.agent.processes import run_command
from tracer.agent.sandbox import launch
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext, grep_child
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.bash import BashTool
from tracer.agent.tools.grep import GrepTool
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


UNSHARE = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--net"]


def _command_ms(workspace: Path, kind: str, repeat: int) -> float | None:
    """Best time of one ``bash -c true`` run the way ``kind`` says, in milliseconds."""
    argv = ["bash", "-c", "true"]
    walls = find_sandbox() if kind == "bwrap" else None
    if (kind == "bwrap" and walls is None) or (kind == "unshare" and not shutil.which("unshare")):
        return None
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        if kind == "bare":
            run_command(argv, cwd=workspace, env={"PATH": "/usr/bin:/bin"}, timeout=30)
        elif kind == "unshare":
            done = run_command(
                [*UNSHARE, "--", *argv], cwd=workspace, env={"PATH": "/usr/bin:/bin"}, timeout=30
            )
            if done.returncode != 0:
                return None
        else:
            with launch(argv, workspace, walls) as (full, fds):
                run_command(
                    full, cwd=workspace, env={"PATH": "/usr/bin:/bin"}, timeout=30, pass_fds=fds
                )
        best = min(best, time.perf_counter() - started)
    return best * 1000


_BIG_OUTPUT = """
import json, resource, sys, tempfile
from pathlib import Path
import yaml
from tracer.record.run import record_scenario
from tracer.chapter.scenario import load_scenario
folder = Path(tempfile.mkdtemp())
command = f"head -c {sys.argv[1]}M /dev/zero | tr '\\\\0' a"
scenario = {"name": "big", "prompt": "p", "permissions": {"allow": ["Bash"]}, "responses": [
    {"tool_use": [{"name": "Bash", "input": {"command": command}}]}, {"text": "ok"}]}
(folder / "s.yaml").write_text(yaml.safe_dump(scenario))
trace = record_scenario(load_scenario(folder / "s.yaml"), folder / "t.trace.jsonl")
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "trace_mb": trace.stat().st_size / 1e6}))
"""


def _output_run(megabytes: int) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", _BIG_OUTPUT, str(megabytes)],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _grep_bound(folder: Path) -> tuple[float, float]:
    """Seconds a backtracking Grep takes with a 2 s deadline; ms of an ordinary Grep."""
    ws = folder / "grep"
    ws.mkdir(exist_ok=True)
    (ws / "a.txt").write_text("a" * 40 + "b\n")
    ctx = ToolContext(workspace=ws)
    saved, grep_child.GREP_SECONDS = grep_child.GREP_SECONDS, 2.0
    started = time.perf_counter()
    try:
        GrepTool().call({"pattern": "^(a+)+$"}, ctx)
    except ToolFailure:
        pass
    finally:
        grep_child.GREP_SECONDS = saved
    stopped = time.perf_counter() - started
    for i in range(200):
        (ws / f"f{i}.py").write_text(f"def f{i}():\n    return {i}\n" * 20)
    started = time.perf_counter()
    GrepTool().call({"pattern": r"return 19\d\b"}, ctx)
    return stopped, (time.perf_counter() - started) * 1000


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
    parser.add_argument("--output-mb", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"setsid sleep 1000 & sleep 1: {_escape_seconds(folder):.2f} s (target: about 1 s)")
        costs: dict[str, float | None] = {}
        for kind, label in (
            ("bare", "bare"),
            ("limits", "under the limits (prlimit, and a pids cgroup where one can be made)"),
            ("unshare", "bare unshare (the old fallback)"),
            ("bwrap", "in the bwrap sandbox (as root: bwrap itself as the session's uid)"),
        ):
            ms = costs[kind] = _command_ms(folder, kind, args.repeat)
            shown = "not available here" if ms is None else f"{ms:.1f} ms"
            print(f"Bash 'true' {label}: {shown}")
        small, big = _output_run(max(args.output_mb // 10, 1)), _output_run(args.output_mb)
        print(
            f"recording {args.output_mb // 10} MB of output: {small['rss_mb']:.0f} MB peak RSS, "
            f"trace {small['trace_mb']:.1f} MB"
        )
        print(
            f"recording {args.output_mb} MB of output: {big['rss_mb']:.0f} MB peak RSS, "
            f"trace {big['trace_mb']:.1f} MB (target: under 200 MB, flat; "
            f"ratio {big['rss_mb'] / small['rss_mb']:.2f})"
        )
        stopped, ordinary = _grep_bound(folder)
        print(f"Grep '^(a+)+$' with a 2 s deadline: stopped after {stopped:.2f} s")
        print(f"Grep over 200 files: {ordinary:.0f} ms")
        # Alternate the two, keeping the best of each, so a busy moment hits neither alone.
        plain = secret = float("inf")
        for _ in range(args.repeat):
            plain = min(plain, _write_seconds(folder, Redactor({}), args.events))
            secret = min(secret, _write_seconds(folder, Redactor(SECRETS), args.events))
    print(f"writing {args.events} events: {plain * 1000:.0f} ms plain, {secret * 1000:.0f} ms")
    print(f"redaction overhead ratio {secret / plain:.2f} (target <= 1.5)")
    if costs["bwrap"] is None:
        print("sandbox cost ratio: not available here (no bwrap sandbox)")
        return
    # Alternated, keeping the best of each, so that a busy moment hits neither alone (measured
    # one after the other, the two figures above can be seconds apart on a shared machine).
    with tempfile.TemporaryDirectory() as tmp:
        bare = walled = float("inf")
        for _ in range(max(args.repeat, 3)):
            bare = min(bare, _command_ms(Path(tmp), "bare", 1) or bare)
            walled = min(walled, _command_ms(Path(tmp), "bwrap", 1) or walled)
    print(
        f"sandbox cost ratio {walled / bare:.2f}: a Bash call in the sandbox ({walled:.1f} ms) "
        f"over a bare one ({bare:.1f} ms), alternated (target <= 5)"
    )


if __name__ == "__main__":
    main()
