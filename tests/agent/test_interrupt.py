"""Ctrl-C while a tool runs ends the turn with ``aborted_tools`` and still leaves a valid trace.

The recorder runs in a real subprocess; SIGINT arrives while Bash is sleeping. The command's
whole process group is killed, the call gets the interruption result, the history stays valid
(every tool_use answered) and the trace ends with a ``terminal`` step.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tracer.files.paths import ROOT
from tracer.trace.schema import validate_trace

#: Long enough never to end by itself, and a length no other test (or other checkout running
#: its tests on this machine) uses, so that finding it alive means ours survived.
SECONDS = f"{30 + os.getpid() % 1000}.25"


def test_ctrl_c_during_a_tool_ends_with_aborted_tools(
    write_scenario: Any, open_recording: Any, tmp_path: Path
) -> None:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": f"sleep {SECONDS}"}}]},
                {"text": "never reached"},
            ],
        }
    )
    out = tmp_path / "interrupted.trace.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracer", "record", "--scenario", str(scenario), "-o", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Bounds against a hang, wide enough that no load eats them; nothing here is timed.
    deadline = time.monotonic() + 120
    while b'"kind":"tool_start"' not in (out.read_bytes() if out.exists() else b""):
        assert time.monotonic() < deadline, "the tool never started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    # The command sleeps for half a minute and more: had Ctrl-C not stopped it, its run would
    # have ended on its own, not as interrupted (checked below).
    assert proc.returncode == 130, stderr  # never 0 after Ctrl-C
    assert "Traceback" not in stderr

    rec = open_recording(out)
    assert rec.terminal.reason == "aborted_tools"
    (run,) = rec.of("tool_run")
    assert run.is_error and run.error_kind == "interrupted"
    assert rec.results()[0]["content"] == "[Request interrupted by user for tool use]"
    assert [e.kind for e in rec.events].count("request") == 1  # nothing was resent
    assert validate_trace(out)[1] == []
    assert not _sleep_survives()


def _sleep_survives() -> bool:
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if fh.read().split(b"\0")[:2] == [b"sleep", SECONDS.encode()]:
                    return True
        except OSError:
            continue
    return False
