"""Keeping the recorder's own secrets out of its children's reach.

A command can look at its parent: ``cat /proc/$PPID/environ`` prints the environment the
recorder was started with, API key included, and ``/proc/$PPID/fd`` opens the recorder's files.
The sandbox's PID namespace hides the parent altogether; without a sandbox, two things narrow
what is left:

* **The secrets leave the environment** once their readers hold them (the SDK client keeps the
  API key; the redactor keeps every secret value): they are removed from ``os.environ`` *and*
  overwritten in the process's original environment block, which is what
  ``/proc/PID/environ`` shows (``unsetenv`` alone only drops a pointer to it).
* **The recorder is not dumpable** (``prctl(PR_SET_DUMPABLE, 0)``): its ``/proc/PID`` entries
  (``environ``, ``mem``, ``fd``) then belong to root and need ``CAP_SYS_PTRACE``, so a command
  running as the same ordinary user can open none of them. Root has that capability, so as root
  a command never runs as root: inside the sandbox it is ``nobody`` without capabilities, and
  without one it runs under a uid of its own (:mod:`tracer.agent.unprivileged`).

Claude Code keeps its key in the process environment; this mirrors what CI runners do with
masked variables, one step further.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterable, Iterator

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def scrub_original_environ(names: Iterable[str]) -> int:
    """Overwrite the values of ``names`` in the process's original environment block with
    ``*``; returns how many were found. Python's ``os.environ`` is a copy and is not touched."""
    wanted = {name.encode() for name in names}
    if not wanted:
        return 0
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        env_start = int(fields[47])  # field 50 of proc(5), counted after "pid (comm)"
        with open("/proc/self/environ", "rb") as fh:
            block = fh.read()
    except (OSError, ValueError, IndexError):
        return 0
    found, offset = 0, 0
    for entry in block.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep and name in wanted and value:
            ctypes.memset(env_start + offset + len(name) + 1, ord("*"), len(value))
            found += 1
        offset += len(entry) + 1
    return found


@contextlib.contextmanager
def hidden_from_children(names: Iterable[str], *, undumpable: bool) -> Iterator[None]:
    """For the length of a session: ``names`` gone from the environment (and its original
    block), and, when ``undumpable``, the process not dumpable. ``os.environ`` gets the values
    back afterwards (a library caller may still want them); the original block does not."""
    saved = {name: os.environ.pop(name) for name in list(names) if name in os.environ}
    scrub_original_environ(saved)
    libc = _libc() if undumpable else None
    was = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) if libc is not None else None
    if libc is not None:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        yield
    finally:
        if libc is not None and was is not None and was > 0:
            libc.prctl(PR_SET_DUMPABLE, was, 0, 0, 0)
        os.environ.update(saved)
