"""Running a command so that it, and everything it starts, dies with the tool call.

Mirrors the job of Claude Code's shell layer (``utils/Shell.ts``, ``utils/ShellCommand.ts``): a
command and the processes it started are killed at the timeout or on abort. We run each command
in its own process group and kill the group, but a group is not enough: a command can leave it
(``setsid sleep 1000 &``), and a child that keeps the stdout pipe open makes a reader that waits
for end-of-file wait forever. So here:

* output goes to temporary *files*, not pipes: we wait for the shell to exit, never for EOF;
* every command carries a marker in its environment (``TRACER_RUN``), inherited by whatever it
  starts, even in a new session; when the shell exits (or times out, or Ctrl-C arrives) its
  group is killed and so is every process still wearing its marker;
* on Linux the recorder is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): an escaped
  child whose parent died comes back to us instead of to init, so we can reap it after the kill,
  and one that even shed the marker is still found, as a child of ours, when the session ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MARKER = "TRACER_RUN"
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make orphaned descendants ours (Linux only). Returns whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True, slots=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool


def kill_group(pgid: int) -> None:
    """SIGKILL a process group that may already be gone (the Ctrl-C race: a command that ended
    by itself within the grace period must not turn into "No such process")."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_marked(token: str) -> list[int]:
    """SIGKILL every process whose environment carries ``TRACER_RUN=token``, and wait for them.

    Scans again until a scan finds nobody: a process caught between ``fork`` and ``exec`` may
    have a child the first scan could not see yet.
    """
    needle = f"{MARKER}={token}".encode()
    killed: list[int] = []
    for _ in range(10):
        found = []
        for pid in _pids():
            try:
                with open(f"/proc/{pid}/environ", "rb") as fh:
                    if needle not in fh.read().split(b"\0"):
                        continue
                os.kill(pid, signal.SIGKILL)
                found.append(pid)
            except (OSError, ValueError):
                continue
        if not found:
            break
        _reap(found)
        killed += found
    return killed


def children() -> set[int]:
    """Our direct children: with the subreaper, that includes orphans of finished commands."""
    me = os.getpid()
    found = set()
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                if int(fh.read().rsplit(b")", 1)[1].split()[1]) == me:
                    found.add(pid)
        except (OSError, ValueError, IndexError):
            continue
    return found


def kill_orphans(known: set[int]) -> list[int]:
    """At the end of a session: SIGKILL every child of ours that was not there at its start.

    Every command has finished by then, so such a child is a process that escaped its command
    *and* shed the ``TRACER_RUN`` marker (``env -i setsid ...``), and came back to us because we
    are its subreaper.
    """
    strays = sorted(children() - known)
    for pid in strays:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    _reap(strays)
    return strays


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _reap(pids: list[int]) -> None:
    """Wait (briefly) until every killed process is really dead, and collect the zombies of
    those the subreaper made our children. SIGKILL is delivered asynchronously: on a busy
    machine a killed process can still look alive for a few milliseconds."""
    deadline = time.monotonic() + 2.0
    pending = set(pids)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid if _dead(pid) else 0  # not ours: init (or its parent) reaps it
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.005)


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def run_command(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float | None,
    running: set[int] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> Finished:
    """Run ``argv`` to the end (or ``timeout``), then kill whatever it left behind.

    ``running`` holds the process groups still running, so that Ctrl-C in another thread can
    kill them (:meth:`ToolContext.kill_running`).
    """
    token = uuid.uuid4().hex
    running = running if running is not None else set()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**env, MARKER: token},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group, which a kill takes down whole
            pass_fds=pass_fds,
        )
        running.add(proc.pid)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Also on Ctrl-C (KeyboardInterrupt passes through after this).
            running.discard(proc.pid)
            kill_group(proc.pid)
            kill_marked(token)
            _wait_quietly(proc)
        out.seek(0)
        err.seek(0)
        return Finished(proc.returncode, out.read(), err.read(), timed_out)


def _wait_quietly(proc: subprocess.Popen[bytes]) -> None:
    # After SIGKILL the shell is gone at once; a second Ctrl-C here must not leave a zombie.
    try:
        proc.wait(timeout=5)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        kill_group(proc.pid)
        proc.wait()
