"""Resource limits for every command: processes, memory, file size and CPU time.

A sandbox hides the machine; it does not stop a command from filling it. So every Bash and
set-up command starts under ``setrlimit`` limits, sandboxed or not (Claude Code's sandbox leaves
this to the operating system; container runtimes set the same four):

* ``RLIMIT_NPROC`` — processes of the user (a fork bomb stops at the limit; the kernel does not
  apply it to real root, uid 0, so as root a pids cgroup does, :mod:`tracer.agent.pids_cgroup`;
  without a sandbox, root's command is no longer root, :mod:`tracer.agent.unprivileged`, and its
  own uid's limit holds too);
* ``RLIMIT_AS`` — address space of each process;
* ``RLIMIT_FSIZE`` — the largest file a command may write (its output files included: a command
  that prints more than this is stopped by ``SIGXFSZ``);
* ``RLIMIT_CPU`` — CPU seconds of each process (the Bash timeout bounds wall time).

The limits are set by ``prlimit`` (util-linux) in front of the command, or, where it is missing,
by a few lines of Python that set them and ``exec`` the command: never with ``preexec_fn``, which
is unsafe in a program with threads (tools run in parallel).
"""

from __future__ import annotations

import functools
import shutil
import sys

MAX_PROCESSES = 512
MAX_MEMORY_BYTES = 4 << 30
MAX_FILE_BYTES = 1 << 30
MAX_CPU_SECONDS = 900

LIMITS = {
    "nproc": MAX_PROCESSES,
    "as": MAX_MEMORY_BYTES,
    "fsize": MAX_FILE_BYTES,
    "cpu": MAX_CPU_SECONDS,
    "core": 0,
}

_TRAMPOLINE = (
    "import os, resource, sys\n"
    "for name, value in (('NPROC', {nproc}), ('AS', {as_}), ('FSIZE', {fsize}), "
    "('CPU', {cpu}), ('CORE', 0)):\n"
    "    limit = getattr(resource, 'RLIMIT_' + name, None)\n"
    "    if limit is not None:\n"
    "        hard = resource.getrlimit(limit)[1]\n"
    "        value = value if hard == resource.RLIM_INFINITY else min(value, hard)\n"
    "        resource.setrlimit(limit, (value, value))\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)


@functools.cache
def _prlimit() -> str | None:
    return shutil.which("prlimit")


def limited(argv: list[str]) -> list[str]:
    """``argv`` started under the limits (nothing changes where ``setrlimit`` does not exist)."""
    if not sys.platform.startswith("linux"):
        return argv
    tool = _prlimit()
    if tool is not None:
        return [tool, *(f"--{name}={value}" for name, value in LIMITS.items()), "--", *argv]
    code = _TRAMPOLINE.format(
        nproc=MAX_PROCESSES, as_=MAX_MEMORY_BYTES, fsize=MAX_FILE_BYTES, cpu=MAX_CPU_SECONDS
    )
    return [sys.executable, "-S", "-c", code, *argv]
