"""A stop signal while Claude Code runs: claude and its commands are killed, the trace ends
with its terminal event saying so, and ``record`` exits 128 + the signal, as it does for
tracer's own loop (needs ``claude``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from claude_helpers import real_claude
from run_helpers import Recording

from tracer.files.paths import ROOT

SCENARIO = """\
name: sleepy
prompt: Wait a minute.
permissions: {allow: ['Bash(sleep:*)']}
responses:
  - tool_use: [{name: Bash, input: {command: sleep 90, description: wait}}]
  - text: Done.
"""


def test_sigterm_ends_the_recording_and_says_so(tmp_path: Path) -> None:
    claude = real_claude()
    scenario = tmp_path / "sleepy.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    trace = tmp_path / "sleepy.trace.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracer", "record", "--claude-code", "--scenario", str(scenario),
         "-o", str(trace)],
        cwd=ROOT,
        env={**os.environ, "TRACER_CLAUDE": str(claude)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        # The first answer (the sleep call) is on the wire once its response event is written;
        # claude is then running the command. The deadline is a margin, not a race.
        deadline = time.monotonic() + 120
        while '"kind":"response"' not in (trace.read_text() if trace.exists() else ""):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr
    assert f"wrote {trace}" in stderr
    end = Recording(trace).terminal
    assert end.error == "recording stopped by SIGTERM: claude was killed"
