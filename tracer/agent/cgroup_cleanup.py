"""Emptying and removing the cgroups a command ran in, however the command or tracer ends.

:func:`tracer.agent.pids_cgroup.capped` makes a command's cgroups; this module takes them down.
:func:`empty` kills every process still in one, escaped from the command's tree or not, reaps
those that were ours (a cgroup v1 with a zombie in it refuses ``rmdir``) and removes it. What is
still busy when that ends waits in a set for the session's end (:func:`remove_pending`), or for
the interpreter's exit, which empties every cgroup still made or pending. A recorder killed
outright has no exit: the next one, once per process, sweeps the empty cgroups of recorders
that are gone (:func:`sweep`), known by their name, ``tracer-PID-HEX``.

Claude Code's sandbox makes no cgroups, so nothing here mirrors it; container runtimes take a
container's cgroup down the same way, by killing what is in it before ``rmdir``.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import time
from pathlib import Path

#: Cgroups of tracer's: ``tracer-PID-HEX``, PID being the recorder that made it.
PREFIX = "tracer-"
#: Cgroups made and not yet emptied (their command may be running).
live: set[Path] = set()


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
    if not _pending and not live:
        return
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    for folder in list(live | _pending):
        _drain(folder, 1.0)
