"""Attacks on the end of a session: daemons that try to outlive it, with and without the
sandbox, and a command that tries to rewrite the trace being written (through
``/proc/$PPID/fd``). No process is left; the trace is the recorder's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import ROOT


def _alive(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in argv and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("sandbox", ["auto", "none"])
@pytest.mark.parametrize(
    "daemon",
    [
        "bash -c 'sleep {a} & sleep {b}' &",  # two levels deep, left running
        "env -i setsid bash -c 'sleep {a} & sleep {b}' > /dev/null 2>&1 &",  # no marker, no group
        "nohup setsid sh -c '(sleep {a} &) ; sleep {b}' > /dev/null 2>&1 &",
    ],
)
def test_no_daemon_outlives_the_session(
    record: Any, monkeypatch: pytest.MonkeyPatch, sandbox: str, daemon: str
) -> None:
    monkeypatch.setenv("TRACER_SANDBOX", sandbox)
    a, b = f"{3000 + os.getpid() % 997}.25", f"{3000 + os.getpid() % 997}.75"
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": daemon.format(a=a, b=b)}}]},
                {"text": "done"},
            ],
        }
    )
    assert rec.terminal.reason == "completed"
    assert _alive(f"sleep {a}") == [] and _alive(f"sleep {b}") == []


WRITE_THROUGH_FD = (
    "ls -l /proc/$PPID/fd 2>&1 | head -20; "
    "for f in /proc/$PPID/fd/*; do echo HACKED 2>/dev/null >> $f; done; "
    "for f in /proc/[0-9]*/fd/*; do case $(readlink $f) in *.trace.jsonl) "
    "echo HACKED >> $f;; esac; done 2>/dev/null; echo tried"
)


def _fd_scenario(write_scenario: Any) -> Path:
    return write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": WRITE_THROUGH_FD}}]},
                {"text": "done"},
            ],
        }
    )


def test_in_the_sandbox_a_command_cannot_reach_the_trace(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    trace = tmp_path / "fd.trace.jsonl"
    proc = tracer_cli("record", "--scenario", str(_fd_scenario(write_scenario)), "-o", str(trace))
    assert proc.returncode == 0, proc.stderr
    assert b"\nHACKED" not in trace.read_bytes()
    assert tracer_cli("validate", str(trace)).returncode == 0


def test_without_a_sandbox_the_recorder_is_not_dumpable_while_commands_run(
    record: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    seen: list[int] = []

    def check(event: Any) -> None:
        if event.kind == "tool_start":
            seen.append(libc.prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE

    monkeypatch.setenv("TRACER_SANDBOX", "none")
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "true"}}]},
                {"text": "done"},
            ],
        },
        also=[check],
    )
    assert rec.terminal.reason == "completed"
    assert seen == [0]  # /proc/$PPID/{fd,environ,mem} need CAP_SYS_PTRACE meanwhile
    assert libc.prctl(3, 0, 0, 0, 0) == 1  # and it is dumpable again afterwards


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become nobody"
)
def test_without_a_sandbox_the_same_user_cannot_reach_the_trace(
    write_scenario: Any, tmp_path: Path
) -> None:
    # The recorder runs as an ordinary user (nobody) with no sandbox: it is not dumpable, so
    # its /proc entries need CAP_SYS_PTRACE, which a command of the same user does not have.
    tmp_path.chmod(0o777)
    scenario = _fd_scenario(write_scenario)
    scenario.chmod(0o644)
    trace = tmp_path / "fd.trace.jsonl"
    proc = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-m",
            "tracer",
            "record",
            "--scenario",
            str(scenario),
            "-o",
            str(trace),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "TRACER_SANDBOX": "none", "HOME": str(tmp_path)},
        check=False,
    )
    if proc.returncode != 0 and "Permission denied" in proc.stderr and not trace.exists():
        pytest.skip(f"nobody cannot run tracer from {ROOT}")
    assert proc.returncode == 0, proc.stderr
    data = trace.read_bytes()
    assert b"\nHACKED" not in data and b"tried" in data
