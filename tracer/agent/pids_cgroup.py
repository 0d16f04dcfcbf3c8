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
    """``argv`` started inside a pids cgroup of its own (where one can be made).

    The cgroup is removed on every way out: the command's end, its timeout, an exception or a
    stop signal in between (it is in :data:`_live` from before it exists, so even an interrupt
    between ``mkdir`` and the ``try`` leaves it to the interpreter's exit), and a recorder killed
    outright leaves it to the next one (:func:`sweep`)."""
    base = hierarchy()
    if base is None:
        yield argv
        return
    sweep(base)
    folder = base / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        _live.add(folder)
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(str(limits.MAX_PROCESSES))
            made = True
        except OSError:
            made = False  # no cap after all; the finally below removes what mkdir made
        if not made:
            yield argv
        else:
            join = 'echo $$ > "$0" && exec "$@"'
            yield ["/bin/sh", "-c", join, str(folder / "cgroup.procs"), *argv]
    finally:
        try:
            empty(folder)
        finally:
            _live.discard(folder)


#: Cgroups of tracer's: ``tracer-PID-HEX``, PID being the recorder that made it.
PREFIX = "tracer-"
#: Cgroups made and not yet emptied (their command may be running).
_live: set[Path] = set()


def empty(folder: Path, seconds: float = 5.0) -> None:
    """Kill every process in the cgroup until none is left, then remove it.

    A killed process that came back to us (we are the session's subreaper) stays a zombie until
    it is reaped, and a cgroup v1 with a zombie in it refuses ``rmdir``: so each one killed is
    reaped here too (only those: every other child of ours has an owner that waits for it).
    What is still there when this ends, however it ends (an exception, a second Ctrl-C), waits
    in :data:`_pending`.
    """
    removed = False
    try:
        removed = _drain(folder, seconds)
    finally:
        if not removed:
            _pending.add(folder)


def _drain(folder: Path, seconds: float) -> bool:
    """Kill, reap and ``rmdir`` for up to ``seconds``; whether the cgroup is gone."""
    killed: set[int] = set()
    deadline = time.monotonic() + seconds
    busy_since: float | None = None
    while True:
        pids = _members(folder)
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
            if _removed(folder):
                return True
            # Still busy with no process listed: one on its way out, or a zombie that is
            # someone else's to reap. Not worth more than a moment: the session's end does.
            busy_since = busy_since or time.monotonic()
            if time.monotonic() - busy_since > 0.2:
                return False
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def _members(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []  # gone, or unreadable: rmdir says which


def _removed(folder: Path) -> bool:
    try:
        folder.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    _pending.discard(folder)
    return True


#: Cgroups still busy when their command ended (a zombie of ours in them): removed once the
#: session has reaped every orphan (:func:`remove_pending`), or when the interpreter exits.
_pending: set[Path] = set()


def remove_pending() -> None:
    """At a session's end (its orphans killed and reaped): empty what its commands left."""
    for folder in list(_pending):
        _drain(folder, 1.0)


@functools.cache
def sweep(base: Path) -> None:
    """Once per process: remove the empty cgroups of recorders that are gone (killed outright,
    with no chance to clean up). Only empty ones, a minute old at least, whose recorder's pid
    is not running: a cgroup of a live recorder is never touched, nor one just made."""
    with contextlib.suppress(OSError):
        for folder in base.iterdir():
            owner = folder.name.removeprefix(PREFIX).split("-")[0]
            if not folder.name.startswith(PREFIX) or not owner.isdigit() or _alive(int(owner)):
                continue
            with contextlib.suppress(OSError):
                if time.time() - folder.stat().st_mtime > 60 and not _members(folder):
                    folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


@atexit.register
def _at_exit() -> None:
    """The interpreter is leaving and waits for nothing any more: reap the zombies a subreaper
    collected (they keep a cgroup v1 busy), then empty and remove what is left."""
    if not _pending and not _live:
        return
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    for folder in list(_live | _pending):
        _drain(folder, 1.0)
