"""A stop signal during the recorder's start-up probes, or during the clean-up after a command,
leaves no process behind.

Before a session's first command the recorder tries, for real, which sandbox starts
(:func:`tracer.agent.sandbox_choice.find_sandbox`) and whether the seccomp filter loads
(:func:`tracer.agent.unprivileged.loadable_filter`). Ctrl-C there used to kill only the probe's
own process: what it had started (bwrap's process inside its namespace) lived on, and ended as a
zombie nobody reaped. The probes now run as a tool's command does
(:func:`tracer.agent.processes.run_command`), which also holds a stop signal back while the
command is being started, until it is known and can be killed. Here each probe starts a long
sleep in the background and then interrupts the test process itself, under the recorder's own
signal handler, so the Ctrl-C comes at a known moment: as soon as the probe has started. The
same hold covers the clean-up after a command, which a stop used to cut short before the kill.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracer.agent import sandbox_choice, seccomp, unprivileged
from tracer.agent.sandbox import Sandbox
from tracer.interrupts import Interrupts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc")


def _interrupting_probe(pidfile: Path) -> list[str]:
    """A probe that leaves a sleep running behind it, then sends this process a Ctrl-C."""
    seconds = f"{1000 + uuid.uuid4().int % 100000}.5"
    script = f"sleep {seconds} & echo $! > {pidfile}; kill -INT {os.getpid()}; wait"
    return ["sh", "-c", script]


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie has stopped running)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def _reap_if_ours(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # only if the test failed: never leave it to the suite
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _assert_not_running(pid: int) -> None:
    try:
        assert not _running(pid), "the probe's background process outlived the Ctrl-C"
    finally:
        _reap_if_ours(pid)


def test_ctrl_c_during_the_sandbox_probe_kills_what_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "pid"

    @contextlib.contextmanager
    def launch(self: Sandbox, argv: list[str], workspace: Path) -> Iterator[tuple[list[str], ()]]:
        yield _interrupting_probe(pidfile), ()

    monkeypatch.setattr(Sandbox, "launch", launch)
    with pytest.raises(KeyboardInterrupt), Interrupts():  # the recorder's handler
        sandbox_choice._first_that_starts(tmp_path)
    _assert_not_running(int(pidfile.read_text()))


def test_ctrl_c_during_the_filter_probe_kills_what_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if seccomp.program() is None:
        pytest.skip("no seccomp filter on this platform")
    pidfile = tmp_path / "pid"
    monkeypatch.setattr(unprivileged, "dropped", lambda *_: _interrupting_probe(pidfile))
    with pytest.raises(KeyboardInterrupt), Interrupts():
        unprivileged.loadable_filter.__wrapped__()  # the probe itself, not its cached answer
    _assert_not_running(int(pidfile.read_text()))


def test_a_stop_during_the_clean_up_after_a_command_still_kills_and_reaps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command ran out of time; the stop comes as run_command starts killing it. Raised
    # there, it skipped the kill and the reaping: the command ran on, and outlived tracer.
    from tracer.agent import processes

    killed: list[int] = []
    kill_group = processes.kill_group

    def stop_then_kill(pgid: int) -> None:
        killed.append(pgid)
        os.kill(os.getpid(), signal.SIGTERM)
        kill_group(pgid)

    monkeypatch.setattr(processes, "kill_group", stop_then_kill)
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    seconds = f"{1000 + uuid.uuid4().int % 100000}.5"  # it cannot end by itself in the test
    with pytest.raises(KeyboardInterrupt), Interrupts():
        processes.run_command(["sleep", seconds], cwd=tmp_path, env=env, timeout=0.01)
    try:
        with pytest.raises(ChildProcessError):  # killed and reaped: no process of ours is left
            os.waitpid(killed[0], os.WNOHANG)
    finally:
        _reap_if_ours(killed[0])
