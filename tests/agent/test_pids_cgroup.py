"""Every way a command ends removes its pids cgroup: its end, its timeout, an exception, a stop
signal (one while the cgroup is being made, one while it is being emptied), and a recorder killed
outright, whose leftovers the next recorder sweeps.

Cgroups are counted by name: each is ``tracer-PID-HEX``, PID the process that made it, so a
count is this process's own even while other recorders run on the machine. Skipped, saying
why, where no pids cgroup can be made (not root, or no writable pids hierarchy).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import cgroup_cleanup, limits, pids_cgroup
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.files.paths import ROOT
from tracer.record.workspace import SessionDirs


@pytest.fixture
def base() -> Path:
    found = pids_cgroup.hierarchy()
    if found is None:
        pytest.skip("no pids cgroup can be made here (needs root and a writable pids hierarchy)")
    return found


def _made_by(base: Path, pid: int) -> set[str]:
    return {p.name for p in base.iterdir() if p.name.startswith(f"tracer-{pid}-")}


def test_a_command_killed_at_its_timeout_leaves_no_cgroup(base: Path) -> None:
    before = _made_by(base, os.getpid())
    dirs = SessionDirs.create()
    try:
        ctx = ToolContext(workspace=dirs.workspace)
        command = "cat /proc/self/cgroup; sleep 61 & setsid sleep 62 & sleep 63"
        out = BashTool().call({"command": command, "timeout": 500}, ctx)
    finally:
        dirs.cleanup()
    assert out["interrupted"] is True
    # The cgroup the command saw itself in, and every other this process made, are gone.
    folder = base / _own_cgroup(out["stdout"])
    assert folder.name.startswith("tracer-") and not folder.exists()
    assert _made_by(base, os.getpid()) == before


def _own_cgroup(listing: str) -> str:
    """The pids cgroup in a ``/proc/self/cgroup`` listing (v1: its pids line; v2: ``0::``)."""
    lines = [line.split(":", 2) for line in listing.splitlines() if line.count(":") >= 2]
    v1 = [path for _n, names, path in lines if "pids" in names.split(",")]
    return (v1 or [path for n, names, path in lines if n == "0" and not names])[0].lstrip("/")


def test_an_exception_inside_leaves_no_cgroup(base: Path) -> None:
    with pytest.raises(RuntimeError), pids_cgroup.capped(["true"]) as argv:
        folder = Path(argv[3]).parent
        assert folder.is_dir() and folder.parent == base
        raise RuntimeError("the tool failed")
    assert not folder.exists()


class _Interrupting:
    """A limit whose writing is interrupted, as a Ctrl-C between ``mkdir`` and ``try`` is."""

    def __str__(self) -> str:
        raise KeyboardInterrupt


def test_an_interrupt_while_it_is_made_leaves_no_cgroup(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Path] = []
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        real_mkdir(self, *args, **kwargs)
        if self.parent == base:
            made.append(self)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(limits, "MAX_PROCESSES", _Interrupting())
    with pytest.raises(KeyboardInterrupt), pids_cgroup.capped(["true"]):
        pass
    assert len(made) == 1 and not made[0].exists()


def test_an_interrupt_while_it_is_emptied_leaves_it_to_the_sessions_end(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = cgroup_cleanup._drain
    calls: list[Path] = []

    def interrupted_once(folder: Path, seconds: float) -> bool:
        calls.append(folder)
        if len(calls) == 1:
            raise KeyboardInterrupt  # a second Ctrl-C in the middle of the clean-up
        return real(folder, seconds)

    monkeypatch.setattr(cgroup_cleanup, "_drain", interrupted_once)
    with pytest.raises(KeyboardInterrupt), pids_cgroup.capped(["true"]) as argv:
        folder = Path(argv[3]).parent
    assert folder.exists() and folder in cgroup_cleanup._pending
    cgroup_cleanup.remove_pending()  # what the session's end calls
    assert not folder.exists() and folder not in cgroup_cleanup._pending


def test_a_recording_stopped_by_sigterm_leaves_no_cgroup(base: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "slow.yaml"
    scenario.write_text(
        "name: slow\nprompt: go\npermissions: {allow: [Bash]}\nresponses:\n"
        "  - tool_use: [{name: Bash, input: {command: 'sleep 64 & sleep 65'}}]\n"
        "  - text: done\n",
        encoding="utf-8",
    )
    trace = tmp_path / "t.trace.jsonl"
    err = tmp_path / "stderr"
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tracer",
                "record",
                "--scenario",
                str(scenario),
                "-o",
                str(trace),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        while not _made_by(base, proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _made_by(base, proc.pid), "the command never started in a cgroup"
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # say where it stood, for the next one who sees it
            tree = subprocess.run(["ps", "-o", "pid,stat,args", "--ppid", str(proc.pid)],
                                  capture_output=True, text=True, check=False).stdout  # fmt: skip
            pytest.fail(f"no exit 30 s after SIGTERM; children:\n{tree}\n{err.read_text()}")
        assert code == 128 + signal.SIGTERM, err.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _made_by(base, proc.pid) == set()


def test_the_leftovers_of_a_recorder_killed_outright_are_swept(base: Path) -> None:
    dead = _dead_pid()
    old = time.time() - 3600
    abandoned = base / f"tracer-{dead}-sweeptest1"
    fresh = base / f"tracer-{dead}-sweeptest2"  # just made: its command may be joining it
    live = base / f"tracer-{os.getpid()}-sweeptest3"  # its recorder is running
    kept = [fresh, live]
    try:
        for folder in (abandoned, *kept):
            folder.mkdir()
        for folder in (abandoned, live):
            os.utime(folder, (old, old))
        cgroup_cleanup.sweep.__wrapped__(base)  # once per process: called here afresh
        assert not abandoned.exists()
        assert all(folder.exists() for folder in kept)
    finally:
        for folder in (abandoned, *kept):
            if folder.exists():
                folder.rmdir()


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc: Any = subprocess.Popen(["true"])
    proc.wait()
    return int(proc.pid)
