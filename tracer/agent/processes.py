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
from typing import IO

from tracer.interrupts import holding

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


#: Bytes of each stream a command's result holds in memory (and in the trace).
OUTPUT_CAP_BYTES = 1024 * 1024
#: Bytes of stdout kept in the overflow file when there is more than the cap.
KEPT_OUTPUT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    stdout_size: int = 0
    """Bytes the command printed on stdout in all (``stdout`` holds at most the cap)."""
    stderr_size: int = 0
    overflow: Path | None = None
    """Where the whole stdout was kept (up to :data:`KEPT_OUTPUT_BYTES`) when it overflowed."""


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
    are its subreaper. Killing it orphans *its* children, which come back to us in turn: so
    scan, kill, reap and scan again until a scan finds nobody (a daemon two levels deep,
    ``bash -c 'sleep 1000 & sleep 1001'``, survived the single scan there used to be).
    """
    killed: list[int] = []
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        strays = sorted(children() - known)
        if not strays:
            break
        for pid in strays:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)  # a stray that leads a group takes it along
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap(strays)
        killed += strays
    return killed


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
    overflow_dir: Path | None = None,
) -> Finished:
    """Run ``argv`` to the end (or ``timeout``), then kill whatever it left behind.

    ``running`` holds the process groups still running, so that Ctrl-C in another thread can
    kill them (:meth:`ToolContext.kill_running`). Output is read back only up to
    :data:`OUTPUT_CAP_BYTES` per stream, so a command printing a gigabyte costs a gigabyte of
    disk for a moment, never of memory; a longer stdout is copied, in chunks, to
    ``overflow_dir`` (as Claude Code copies a large output file to ``tool-results/``).
    """
    token = uuid.uuid4().hex
    running = running if running is not None else set()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # A stop signal between the fork and the try below would leave the command running
        # with nobody to kill it: it waits until the command is started and known.
        with holding():
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
            # Also on Ctrl-C (KeyboardInterrupt passes through after this). A stop that comes
            # in the middle of it waits until the command is killed and reaped: raised here, it
            # skipped the reaping, and the command outlived tracer as a zombie nobody reaped.
            with holding():
                running.discard(proc.pid)
                kill_group(proc.pid)
                kill_marked(token)
                _wait_quietly(proc)
        sizes = os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size
        overflow = None
        if sizes[0] > OUTPUT_CAP_BYTES and overflow_dir is not None:
            overflow = _keep(out, overflow_dir / f"{token}.stdout.txt")
        return Finished(
            proc.returncode,
            os.pread(out.fileno(), OUTPUT_CAP_BYTES, 0),
            os.pread(err.fileno(), OUTPUT_CAP_BYTES, 0),
            timed_out,
            stdout_size=sizes[0],
            stderr_size=sizes[1],
            overflow=overflow,
        )


def _keep(source: IO[bytes], target: Path) -> Path | None:
    """Copy the first :data:`KEPT_OUTPUT_BYTES` of ``source`` to ``target``, a chunk at a time."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("xb") as fh:
            offset = 0
            while offset < KEPT_OUTPUT_BYTES:
                chunk = os.pread(source.fileno(), min(1 << 20, KEPT_OUTPUT_BYTES - offset), offset)
                if not chunk:
                    break
                fh.write(chunk)
                offset += len(chunk)
    except OSError:
        return None
    return target


def _wait_quietly(proc: subprocess.Popen[bytes]) -> None:
    # After SIGKILL the shell is gone at once; a second Ctrl-C here must not leave a zombie.
    try:
        proc.wait(timeout=5)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        kill_group(proc.pid)
        proc.wait()
