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
changes: the rlimit and the PID namespace are the bound. How a cgroup is emptied and removed
again, whatever ends the command or tracer, is :mod:`tracer.agent.cgroup_cleanup`'s.

The same way, beside it, a **memory** cgroup holds all of a command's processes (and what they
put in the sandbox's ``/tmp``) to one total (:mod:`tracer.agent.totals`): ``RLIMIT_AS`` bounds
each process alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

from tracer.agent import limits
from tracer.agent.cgroup_cleanup import PREFIX, empty, live, sweep


@functools.cache
def hierarchy(controller: str = "pids") -> Path | None:
    """The folder under which this process may create a cgroup with ``controller``
    (``pids``, ``memory``), or ``None``."""
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
        if fstype == "cgroup" and controller in options.split(","):
            path = next((p for p in own if controller in p.split(":")[1].split(",")), None)
        elif fstype == "cgroup2":
            path = next((p for p in own if p.startswith("0::")), None)
        else:
            continue
        if path is None:
            continue
        base = Path(point) / path.split(":", 2)[2].lstrip("/")
        if fstype == "cgroup2" and not _has(base, controller):
            continue
        if os.access(base, os.W_OK):
            return base
    return None


def _has(base: Path, controller: str) -> bool:
    try:
        return controller in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


#: The files that set a memory total: cgroup v1, then v2. The swap files may be missing
#: (swap accounting off, no swap): the total then holds for memory alone, which is all there is.
_MEMORY_FILES = {
    "v1": ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
    "v2": ("memory.max", "memory.swap.max"),
}


def _memory_limits(folder: Path, memory_bytes: int) -> list[tuple[str, object, bool]]:
    """(file, value, required) for a memory total, in the order they must be written."""
    v1 = (folder.parent / "memory.limit_in_bytes").exists()
    main, swap = _MEMORY_FILES["v1" if v1 else "v2"]
    return [(main, memory_bytes, True), (swap, memory_bytes if v1 else 0, False)]


@contextlib.contextmanager
def capped(
    argv: list[str], memory_bytes: int | None = None, notes: list[str] | None = None
) -> Iterator[list[str]]:
    """``argv`` started inside a pids cgroup of its own (where one can be made) and, given
    ``memory_bytes``, a memory cgroup holding them all to that total (cgroup v1: a second
    folder in the memory hierarchy; v2: the same folder). A process the kernel killed for the
    memory total is said in ``notes``.

    The cgroups are removed on every way out (:mod:`tracer.agent.cgroup_cleanup`): the
    command's end, its timeout, an exception or a stop signal in between (each is in
    :data:`~tracer.agent.cgroup_cleanup.live` from before it exists, so even an interrupt
    between ``mkdir`` and the ``try`` leaves it to the interpreter's exit), and a recorder killed
    outright leaves them to the next one (:func:`~tracer.agent.cgroup_cleanup.sweep`)."""
    base = hierarchy()
    memory_base = hierarchy("memory") if memory_bytes else None
    if base is None and memory_base is None:
        yield argv
        return
    name = f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
    wanted: dict[Path, list[tuple[str, object, bool]]] = {}
    if base is not None:
        sweep(base)
        wanted[base / name] = [("pids.max", _Max(), True)]
    memory_folder = None
    if memory_base is not None and memory_bytes:
        sweep(memory_base)
        memory_folder = memory_base / name
        wanted.setdefault(memory_folder, []).extend(_memory_limits(memory_folder, memory_bytes))
    joined: list[Path] = []
    try:
        for folder, files in wanted.items():
            live.add(folder)
            if _made(folder, files):
                joined.append(folder)
        procs = [str(folder / "cgroup.procs") for folder in joined]
        if not procs:
            yield argv
        elif len(procs) == 1:
            yield ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs[0], *argv]
        else:
            join = 'echo $$ > "$0" && echo $$ > "$1" && shift && exec "$@"'
            yield ["/bin/sh", "-c", join, *procs, *argv]
        if memory_folder in joined and notes is not None and memory_bytes:
            killed = _oom_kills(memory_folder)
            if killed:
                notes.append(
                    f"tracer: the sandbox's memory total of {memory_bytes >> 20} MB "
                    f"(--max-memory) was reached: the kernel killed {killed} process"
                    f"{'es' if killed > 1 else ''}"
                )
    finally:
        try:
            for folder in wanted:
                empty(folder)
        finally:
            for folder in wanted:
                live.discard(folder)


class _Max:
    """The process limit, read when it is written (after ``mkdir``), not before."""

    def __str__(self) -> str:
        return str(limits.MAX_PROCESSES)


def _made(folder: Path, files: list[tuple[str, object, bool]]) -> bool:
    """Make ``folder`` and write its limits; whether it is usable (the finally of
    :func:`capped` removes what ``mkdir`` made either way)."""
    try:
        folder.mkdir()
    except OSError:
        return False
    for file, value, required in files:
        try:
            (folder / file).write_text(str(value))
        except OSError:
            if required:
                return False
    return True


def _oom_kills(folder: Path) -> int:
    """Processes the OOM killer ended in ``folder`` (v1 ``memory.oom_control``, v2
    ``memory.events``)."""
    for file in ("memory.oom_control", "memory.events"):
        try:
            lines = (folder / file).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
    return 0
