"""A cap on a command's processes that holds for root too: a ``pids`` cgroup of its own.

``RLIMIT_NPROC`` (:mod:`tracer.agent.limits`) counts the processes of a *user*, and the kernel
never applies it to real root, uid 0, which is what a bwrap sandbox started by root maps its
``nobody`` to. So where this process may create cgroups (root, with a writable ``pids``
hierarchy: cgroup v1, or v2 with the controller enabled below us), each command starts in a
fresh one whose ``pids.max`` is :data:`~tracer.agent.limits.MAX_PROCESSES`: a fork bomb stops
there. The command joins it before anything else runs (a ``sh`` writes its own pid into
``cgroup.procs`` and ``exec``\\ s the command, so every descendant is born inside), and when the
command is done every process still in the cgroup is killed, escaped or not, and the cgroup
removed. Container runtimes bound a container the same way; Claude Code's sandbox does not.

Where cgroups cannot be created (an ordinary user, a read-only ``/sys/fs/cgroup``), nothing
changes: the rlimit and the PID namespace are the bound.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from tracer.agent import limits


@functools.cache
def hierarchy() -> Path | None:
    """The folder under which this process may create a pids cgroup, or ``None``."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if " - " not in line:
            continue
        point = fields[4]
        fstype, _source, options = line.split(" - ", 1)[1].split()[:3]
        if fstype == "cgroup" and "pids" in options.split(","):
            path = next((p for p in own if "pids" in p.split(":")[1].split(",")), None)
        elif fstype == "cgroup2":
            path = next((p for p in own if p.startswith("0::")), None)
        else:
            continue
        if path is None:
            continue
        base = Path(point) / path.split(":", 2)[2].lstrip("/")
        if fstype == "cgroup2" and not _has_pids(base):
            continue
        if os.access(base, os.W_OK):
            return base
    return None


def _has_pids(base: Path) -> bool:
    try:
        return "pids" in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


@contextlib.contextmanager
def capped(argv: list[str]) -> Iterator[list[str]]:
    """``argv`` started inside a pids cgroup of its own (where one can be made)."""
    base = hierarchy()
    folder = base / f"tracer-{uuid.uuid4().hex[:16]}" if base is not None else None
    try:
        if folder is not None:
            folder.mkdir()
            (folder / "pids.max").write_text(str(limits.MAX_PROCESSES))
    except OSError:
        with contextlib.suppress(OSError):
            folder.rmdir()  # type: ignore[union-attr]
        folder = None
    if folder is None:
        yield argv
        return
    try:
        yield ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(folder / "cgroup.procs"), *argv]
    finally:
        empty(folder)


def empty(folder: Path, seconds: float = 5.0) -> None:
    """Kill every process in the cgroup until none is left, then remove it.

    A killed process that came back to us (we are the session's subreaper) stays a zombie until
    it is reaped, and a cgroup v1 with a zombie in it refuses ``rmdir``: so each one killed is
    reaped here too (only those: every other child of ours has an owner that waits for it).
    """
    killed: set[int] = set()
    deadline = time.monotonic() + seconds
    busy_since: float | None = None
    while time.monotonic() < deadline:
        try:
            pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        for pid in list(killed):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    killed.discard(pid)
            except ChildProcessError:
                killed.discard(pid)  # not ours: its own parent reaps it
        if not pids:
            try:
                folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                # Still busy with no process listed: one on its way out, or a zombie that is
                # someone else's to reap. Not worth more than a moment: the session's end does.
                busy_since = busy_since or time.monotonic()
                if time.monotonic() - busy_since > 0.2:
                    break
        time.sleep(0.01)
    _pending.add(folder)


#: Cgroups still busy when their command ended (a zombie of ours in them): removed once the
#: session has reaped every orphan (:func:`remove_pending`), or when the interpreter exits.
_pending: set[Path] = set()


def remove_pending() -> None:
    for folder in list(_pending):
        try:
            folder.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        _pending.discard(folder)


@atexit.register
def _at_exit() -> None:
    """The interpreter is leaving and waits for nothing any more: reap the zombies a subreaper
    collected (they keep a cgroup v1 busy), then remove what is left."""
    if not _pending:
        return
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    remove_pending()
