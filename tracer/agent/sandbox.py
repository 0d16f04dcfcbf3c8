"""Where a command runs: an allowlisted environment and, on Linux, a sandbox.

Bash and a scenario's set-up commands run real programs, and whatever they print lands in the
trace (and goes back to the model). Two walls keep the recorder's secrets out of reach:

* **An allowlisted environment.** A command gets ``PATH``, the locale, ``TERM``, ``TZ`` and the
  like, plus the session's own fixed values; ``HOME`` is the workspace. Everything else is left
  out, whatever its name: a filter by name would still pass ``DATABASE_URL`` or ``GH_PAT``.
* **A sandbox** (when asked for, and when the machine allows one): `bubblewrap`_ (``bwrap``, the
  tool Claude Code's own sandbox runtime uses on Linux) or, failing that, ``unshare``. Inside, the
  command has its own PID namespace and ``/proc`` (so ``cat /proc/$PPID/environ`` shows nothing
  of the recorder), no network unless ``--allow-network``, and with ``bwrap`` the workspace is
  the only place it can write.

``TRACER_SANDBOX`` picks the kind (``auto``, ``bwrap``, ``unshare``, ``none``); ``none`` is how
the tests check the fallback on a machine that has a sandbox.

.. _bubblewrap: https://github.com/containers/bubblewrap
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: Variables a command may inherit from the recorder; nothing else passes.
ALLOWED_NAMES = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLUMNS", "LINES"}
)

SandboxKind = Literal["bwrap", "unshare"]


def allowlisted_environ(
    workspace: Path, extra: Mapping[str, str] | None = None, source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a command: the allowed names of ``source`` (default: ours), ``HOME`` in
    the workspace, then ``extra`` (the session's fixed identity, clock and locale)."""
    source = os.environ if source is None else source
    env = {
        name: value
        for name, value in source.items()
        if name in ALLOWED_NAMES or name.startswith("LC_")
    }
    env.setdefault("PATH", os.defpath)
    return {**env, "HOME": str(workspace), **(extra or {})}


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How to wrap a command so that it runs walled in."""

    kind: SandboxKind
    allow_network: bool = False

    def wrap(self, argv: list[str], workspace: Path) -> list[str]:
        ws = str(workspace)
        if self.kind == "bwrap":
            return [
                "bwrap",
                *("--ro-bind", "/", "/"),
                *("--dev", "/dev"),
                *("--proc", "/proc"),
                # A private /tmp hides other sessions (and our tool-results folder); the
                # workspace is then bound back in, writable.
                *("--tmpfs", "/tmp"),
                *("--bind", ws, ws),
                "--unshare-pid",
                "--unshare-ipc",
                *([] if self.allow_network else ["--unshare-net"]),
                "--die-with-parent",
                "--new-session",
                *("--chdir", ws),
                "--",
                *argv,
            ]
        return [
            "unshare",
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
            "--kill-child",
            *([] if self.allow_network else ["--net"]),
            "--",
            *argv,
        ]

    def describe(self) -> str:
        walls = "own PID namespace and /proc"
        walls += ", workspace the only writable place" if self.kind == "bwrap" else ""
        walls += ", network on" if self.allow_network else ", network off"
        return f"{self.kind} ({walls})"


#: What a missing sandbox means, said once when a recording asked for one.
NO_SANDBOX_NOTE = (
    "no sandbox available (neither bwrap nor unshare works here): Bash and set-up commands run "
    "with an allowlisted environment only, so they can still see other processes, write outside "
    "the workspace and use the network"
)


def find_sandbox(allow_network: bool = False, choice: str | None = None) -> Sandbox | None:
    """The best sandbox this machine can run, or ``None`` (also when ``choice`` is ``none``)."""
    choice = (choice or os.environ.get("TRACER_SANDBOX") or "auto").lower()
    if choice == "none" or not sys.platform.startswith("linux"):
        return None
    kinds: tuple[SandboxKind, ...] = ("bwrap", "unshare")
    if choice in kinds:
        kinds = (choice,)  # type: ignore[assignment]
    for kind in kinds:
        if _works(kind):
            return Sandbox(kind, allow_network)
    return None


@functools.cache
def _works(kind: SandboxKind) -> bool:
    """Can this machine start that sandbox? Tried once, for real (a binary may exist and still
    be refused user namespaces)."""
    if shutil.which(kind) is None:
        return False
    probe = Path("/tmp") if Path("/tmp").is_dir() else Path.cwd()
    try:
        proc = subprocess.run(
            Sandbox(kind).wrap(["true"], probe),
            env={"PATH": os.environ.get("PATH", os.defpath)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0
