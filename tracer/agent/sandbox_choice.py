"""Which sandbox a session gets, and what it gives up when it gets none.

:mod:`tracer.agent.sandbox` says how a command is walled in; this module decides whether it
can be, once per process. ``TRACER_SANDBOX`` picks the kind (``auto``, ``bwrap``, ``none``;
``none`` is how the tests check the fallback on a machine that has a sandbox, and the old
``unshare`` now means none). :func:`find_sandbox` then starts the strongest bwrap set-up this
machine takes, for real, with ``true`` in a probe folder of its own: with ``--disable-userns``
and the seccomp filter, else without ``--disable-userns`` (bwrap before 0.8), else without the
filter. Where none starts, the recorder says once what the session gives up
(:func:`no_sandbox_note`), in words that depend on whether tracer runs as root, since as root
each command still drops to an unprivileged uid (:mod:`tracer.agent.unprivileged`).

Claude Code 2.1.88's sandbox runtime asks the same question differently: its
``checkDependencies`` looks for ``bwrap`` and ``socat`` on the ``PATH`` and for its pre-built
seccomp filter, and ``getSandboxUnavailableReason`` says why the sandbox is off. Looking is not
enough here: a ``bwrap`` may be installed and still be refused user namespaces, so tracer
tries it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tracer.agent import unprivileged
from tracer.agent.processes import run_command
from tracer.agent.sandbox import Sandbox
from tracer.agent.totals import DEFAULT_TMP_BYTES
from tracer.interrupts import holding


def no_sandbox_note(chosen: bool, as_root: bool | None = None) -> str:
    """What running without a sandbox gives up, said once: because none starts here, or because
    it was turned off (``--no-sandbox``, ``sandbox: false``). As root, commands still drop to an
    unprivileged uid; otherwise they run as the user."""
    as_root = unprivileged.needed() if as_root is None else as_root
    why = (
        "sandbox off" if chosen else "no sandbox available (bwrap is missing or cannot start here)"
    )
    if as_root:
        return (
            f"{why}: Bash and set-up commands run under an unprivileged uid of the session's own "
            "(no groups, no new privileges, seccomp where the kernel takes it) with an "
            "allowlisted environment and resource limits; they cannot write the trace or read "
            "/root, but they can still see every process, read what any user may read, write "
            "outside the workspace where any user may (/tmp) and use the network"
        )
    if chosen:
        return (
            f"{why}: commands run as you, can read /proc/$PPID and every process, write "
            "wherever you can and use the network; only the environment allowlist, the limits "
            "and the tools' path wall remain"
        )
    return (
        f"{why}: Bash and set-up commands run with an allowlisted environment and resource "
        "limits only, so they can still see other processes, write outside the workspace and "
        "use the network"
    )


#: What a missing sandbox means, said once when a recording asked for one.
NO_SANDBOX_NOTE = no_sandbox_note(chosen=False)
#: What ``--no-sandbox`` (or ``sandbox: false``) gives up, said once.
NO_SANDBOX_CHOSEN_NOTE = no_sandbox_note(chosen=True)


def find_sandbox(
    allow_network: bool = False, choice: str | None = None, tmp_bytes: int = DEFAULT_TMP_BYTES
) -> Sandbox | None:
    """The sandbox this machine can run, or ``None`` (also when ``choice`` is ``none``)."""
    choice = (choice or os.environ.get("TRACER_SANDBOX") or "auto").lower()
    if choice not in ("auto", "bwrap") or not sys.platform.startswith("linux"):
        return None
    found = _working_bwrap()
    if found is None:
        return None
    return Sandbox(
        "bwrap",
        allow_network,
        disable_userns=found.disable_userns,
        filtered=found.filtered,
        tmp_bytes=tmp_bytes,
    )


@functools.cache
def _working_bwrap() -> Sandbox | None:
    """The strongest bwrap set-up this machine starts, tried once for real: a binary may exist
    and still be refused user namespaces, and older ones lack ``--disable-userns``."""
    if shutil.which("bwrap") is None:
        return None
    # A folder of its own: as root, the probe's workspace is handed to an unprivileged uid.
    with holding():  # a stop signal now would leave the folder made and nobody to remove it
        probe = Path(tempfile.mkdtemp(prefix="tracer-probe-"))
    try:
        return _first_that_starts(probe)
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def _first_that_starts(probe: Path) -> Sandbox | None:
    for candidate in (
        Sandbox(),
        Sandbox(disable_userns=False),
        Sandbox(disable_userns=False, filtered=False),
    ):
        try:
            with candidate.launch(["true"], probe) as (argv, fds):
                # As a tool's command runs, not as a plain child: a stop signal in the middle
                # then kills the bwrap inside too and reaps it, where it was left a zombie.
                ran = run_command(
                    argv,
                    cwd=probe,
                    env={"PATH": os.environ.get("PATH", os.defpath)},
                    timeout=10,
                    pass_fds=fds,
                )
        except (OSError, subprocess.SubprocessError):
            continue
        if ran.returncode == 0 and not ran.timed_out:
            return candidate
    return None
