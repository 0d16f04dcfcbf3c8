"""Bounds on what a whole sandbox may take, beside the per-process limits of :mod:`.limits`.

``RLIMIT_AS`` bounds each process: three processes held 2 GB each at once, a private ``/tmp``
(a tmpfs of half the RAM by default) took 3 GB of the host's shared memory, and the workspace
took whatever the disk had. So a session has three totals:

* **memory**: one memory cgroup per command, beside its pids cgroup
  (:mod:`tracer.agent.pids_cgroup`), holding every process of the command and what they put in
  ``/tmp``; past it the kernel's OOM killer ends a process and the result says so. Where no
  memory cgroup can be made (not root, no writable memory hierarchy) the recording says so in
  one line at its start;
* **/tmp**: the private tmpfs is mounted with that size (bwrap's ``--size``): past it, writes
  fail with "No space left on device";
* **workspace**: after each command the recorder counts what the workspace holds on disk and,
  past the total, ends the session (``terminal``: ``aborted_tools``, with the reason).

Container runtimes bound a container the same way (``--memory``, ``--tmpfs size=``, a disk
quota); Claude Code's sandbox leaves it to the machine. Each total has a ``record`` option.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MEMORY_BYTES = 4 << 30
DEFAULT_TMP_BYTES = 512 << 20
DEFAULT_WORKSPACE_BYTES = 2 << 30

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


@dataclass(frozen=True, slots=True)
class Totals:
    """The three totals of a session, in bytes."""

    memory_bytes: int = DEFAULT_MEMORY_BYTES
    tmp_bytes: int = DEFAULT_TMP_BYTES
    workspace_bytes: int = DEFAULT_WORKSPACE_BYTES


def parse_size(text: str) -> int:
    """``64M``, ``2G``, ``512K`` or plain bytes; a :class:`ValueError` saying what is wanted."""
    found = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if found is None or int(found[1]) == 0:
        raise ValueError(f"{text!r} is not a size: give bytes, or a number with K, M or G")
    return int(found[1]) * _UNITS[found[2].upper()]


def shown(size: int) -> str:
    """A size as the options take it: ``64M``, ``2G``."""
    for unit in ("G", "M", "K"):
        if size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]}{unit}"
    return str(size)


def disk_usage(folder: Path, stop_after: int | None = None) -> int:
    """Bytes the files under ``folder`` take on disk (allocated blocks, each inode once, no
    link followed). Stops counting once past ``stop_after``: the answer is then only known to
    be larger."""
    total = 0
    seen: set[tuple[int, int]] = set()
    pending = [str(folder)]
    while pending:
        with contextlib.suppress(OSError), os.scandir(pending.pop()) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if (st.st_dev, st.st_ino) in seen:
                        continue
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        pending.append(entry.path)
        if stop_after is not None and total > stop_after:
            break
    return total


def over_workspace(folder: Path, totals: Totals) -> str | None:
    """The reason to end the session when ``folder`` holds more than its total, else ``None``."""
    used = disk_usage(folder, totals.workspace_bytes)
    if used <= totals.workspace_bytes:
        return None
    return (
        f"the workspace holds more than its total of {shown(totals.workspace_bytes)} "
        f"(--max-workspace): the session ends here"
    )
