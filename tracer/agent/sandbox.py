"""Where a command runs: an allowlisted environment, resource limits and, on Linux, a sandbox.

Bash and a scenario's set-up commands run real programs, and whatever they print lands in the
trace (and goes back to the model). Three walls keep the recorder and the machine out of reach:

* **An allowlisted environment.** A command gets ``PATH``, the locale, ``TERM``, ``TZ`` and the
  like, plus the session's own fixed values; ``HOME`` is the workspace. Everything else is left
  out, whatever its name: a filter by name would still pass ``DATABASE_URL`` or ``GH_PAT``.
* **Resource limits** on processes, memory, file size and CPU time (:mod:`tracer.agent.limits`).
* **A sandbox**: `bubblewrap`_ (``bwrap``), the tool Claude Code's own sandbox runtime uses on
  Linux, set up the way that runtime and Codex's Linux sandbox set theirs up: a new user
  namespace in which the command is ``nobody`` (uid 65534) with **no capability at all**, even
  when tracer runs as root (without that, root inside bwrap keeps every capability and can
  ``mount -o remount,rw /`` or ``umount /proc`` to uncover the host's); its own PID, IPC and UTS
  namespaces and a fresh ``/proc`` (so ``cat /proc/$PPID/environ`` shows nothing of the
  recorder, and a ``/proc`` mounted by a less privileged namespace cannot be unmounted); no
  further user namespaces (``--disable-userns``); no network unless asked; the whole disk
  read-only, the workspace the only writable place, and a private ``/tmp``; the places where a
  root-owned secret lives (``/root``, the recorder's ``HOME``, ``/run``, ``/etc/shadow``, the SSH
  host keys) covered by empty folders; and a seccomp filter (:mod:`tracer.agent.seccomp`).

``nobody`` in a namespace bwrap made is whoever started bwrap on the host: started by root, the
command would own every root-owned file (no capability needed) and make root's files, a set-uid
bash among them. So as root, bwrap itself starts as the session's unprivileged uid
(:func:`tracer.agent.unprivileged.as_user`), whose workspace is its own (``0700``) and is mounted
``nosuid,nodev`` inside. Root's recorder still reads and writes it: root passes any permission.

There used to be an ``unshare`` fallback. It is gone: it mapped the command to root in its
namespace, which can unmount ``/proc`` and see every host process, and it left the disk writable,
so it promised walls it did not have. Where bwrap cannot start, there is no namespace sandbox and
tracer says so once; the environment allowlist, the limits and the tools' path wall remain, and
when tracer runs as root, each command also drops to a uid of its session's own, with no groups,
no new privileges and the seccomp filter (:mod:`tracer.agent.unprivileged`), so that root's
commands cannot write the trace, read ``/root`` or signal the recorder. When tracer is not root,
a command without a sandbox runs as the user who started tracer, as before.

``TRACER_SANDBOX`` picks the kind (``auto``, ``bwrap``, ``none``); ``none`` is how the tests check
the fallback on a machine that has a sandbox. Which set-up this machine starts, and the note said
when there is none, are :mod:`tracer.agent.sandbox_choice`'s.

.. _bubblewrap: https://github.com/containers/bubblewrap
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tracer.agent import seccomp, unprivileged
from tracer.agent.limits import limited
from tracer.agent.pids_cgroup import capped
from tracer.agent.totals import DEFAULT_TMP_BYTES

#: Variables a command may inherit from the recorder; nothing else passes.
ALLOWED_NAMES = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLUMNS", "LINES"}
)

SandboxKind = Literal["bwrap"]
#: A command line ready to start, and the file descriptors it needs passed.
Launch = tuple[list[str], tuple[int, ...]]

#: The uid and gid of a sandboxed command, in its own user namespace: ``nobody``.
SANDBOX_UID = 65534

#: Folders covered by an empty tmpfs inside the sandbox: root's home (keys, cloud credentials)
#: and ``/run`` (sockets of the host's daemons, such as Docker's).
HIDDEN_FOLDERS = ("/root", "/run", "/var/run", "/etc/ssh", "/var/lib/docker")
#: Files replaced by an empty one.
HIDDEN_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers")


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

    kind: SandboxKind = "bwrap"
    allow_network: bool = False
    disable_userns: bool = True
    """``--disable-userns`` (bwrap 0.8 and later)."""
    filtered: bool = True
    """Load the seccomp filter (where :mod:`tracer.agent.seccomp` has one for this machine)."""
    tmp_bytes: int = DEFAULT_TMP_BYTES
    """The size of the private ``/tmp`` (a tmpfs: without it, half the RAM)."""

    def wrap(
        self,
        argv: list[str],
        workspace: Path,
        seccomp_fd: int | None = None,
        workspace_fd: int | None = None,
    ) -> list[str]:
        """The bwrap command line. ``workspace_fd``, an ``O_PATH`` descriptor of the workspace,
        is bound instead of its path: what bwrap binds is the folder the recorder handed over,
        even if the path was swapped for a link in between (bwrap still walks to it by its
        path, so the folders above must be crossable by the uid it runs as)."""
        ws = str(workspace)
        bind = ("--bind-fd", str(workspace_fd)) if workspace_fd is not None else ("--bind", ws)
        return [
            "bwrap",
            *("--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)),
            *(["--disable-userns"] if self.disable_userns else []),
            *("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"),
            *([] if self.allow_network else ["--unshare-net"]),
            *("--cap-drop", "ALL"),
            "--die-with-parent",
            "--new-session",  # no TIOCSTI into a terminal
            *("--ro-bind", "/", "/"),
            *("--dev", "/dev"),
            *("--proc", "/proc"),
            # A private /tmp hides other sessions (and our tool-results folder); its size is
            # memory the host lends, so it is bounded.
            *("--size", str(self.tmp_bytes), "--tmpfs", "/tmp"),
            *_hidden(workspace),
            *(_resolver() if self.allow_network else []),
            # Last, so that it wins over whatever it lies under: the one writable place.
            # bwrap mounts it nosuid and nodev: a set-uid file made there raises no one.
            *(*bind, ws),
            *("--chdir", ws),
            *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            "--",
            *argv,
        ]

    @contextlib.contextmanager
    def launch(self, argv: list[str], workspace: Path) -> Iterator[Launch]:
        """The full command line (limits, bwrap, filter) and the descriptors it needs passed.

        The filter travels in a file descriptor of its own for each command: bwrap reads it to
        the end, so two commands must never share one (they run in parallel).

        As root, bwrap itself starts as the session's unprivileged uid
        (:func:`tracer.agent.unprivileged.as_user`), so that the user namespace it makes maps the
        command's ``nobody`` onto that uid, not onto the host's root: what the command makes is
        that uid's on the host, and what only root may read stays unreadable."""
        program = seccomp.program() if self.filtered else None
        with contextlib.ExitStack() as stack:
            fds: list[int] = []
            seccomp_fd = workspace_fd = None
            if program is not None:
                seccomp_fd = os.memfd_create("tracer-seccomp", 0)  # not inherited unless passed
                stack.callback(os.close, seccomp_fd)
                os.write(seccomp_fd, program)
                os.lseek(seccomp_fd, 0, os.SEEK_SET)
                fds.append(seccomp_fd)
            who = None
            if unprivileged.needed():
                who = unprivileged.identity_for(workspace)
                closed = unprivileged.closed_above(os.path.realpath(workspace), who)
                if closed is not None:
                    # bwrap resolves even a bound descriptor by its path.
                    raise OSError(
                        f"the workspace {workspace} lies under {closed}, which the sandbox's "
                        f"uid {who.uid} cannot cross; use a workspace under an open folder"
                    )
                unprivileged.hand_over(workspace, who)
                workspace_fd = os.open(workspace, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
                stack.callback(os.close, workspace_fd)
                fds.append(workspace_fd)
            walled = self.wrap(argv, workspace, seccomp_fd, workspace_fd)
            if who is not None:
                walled = unprivileged.as_user(walled, who)
            yield limited(walled), tuple(fds)

    def describe(self) -> str:
        walls = "uid nobody without capabilities"
        walls += " (an unprivileged uid on the host)" if unprivileged.needed() else ""
        walls += ", own PID namespace and /proc"
        walls += ", workspace the only writable place"
        walls += ", seccomp" if self.filtered and seccomp.program() is not None else ""
        walls += ", network on" if self.allow_network else ", network off"
        return f"{self.kind} ({walls})"


def _hidden(workspace: Path) -> list[str]:
    """bwrap arguments that cover the places holding root's secrets (when they exist)."""
    out: list[str] = []
    home = os.environ.get("HOME")
    folders = [*HIDDEN_FOLDERS, *([home] if home and home not in ("/", "/tmp") else [])]
    for folder in folders:
        path = Path(folder)
        if path.is_dir() and not path.is_symlink() and path != Path("/"):
            out += ["--tmpfs", folder]
    for name in HIDDEN_FILES:
        if Path(name).is_file():
            out += ["--ro-bind", "/dev/null", name]
    return out


@contextlib.contextmanager
def launch(
    argv: list[str],
    workspace: Path,
    sandbox: Sandbox | None,
    memory_bytes: int | None = None,
    notes: list[str] | None = None,
) -> Iterator[Launch]:
    """``argv`` under the limits, in ``sandbox`` when there is one (without one, as root: under a
    uid of its own, :mod:`tracer.agent.unprivileged`), and in a pids cgroup of its own where one
    can be made (:mod:`tracer.agent.pids_cgroup`: the process limit root obeys), with a memory
    cgroup of ``memory_bytes`` beside it (what the kernel did there is added to ``notes``)."""
    if sandbox is None:
        with capped(limited(unprivileged.wrap(argv, workspace)), memory_bytes, notes) as full:
            yield full, ()
        return
    with (
        sandbox.launch(argv, workspace) as (walled, fds),
        capped(walled, memory_bytes, notes) as full,
    ):
        yield full, fds


def _resolver() -> list[str]:
    """With the network on, ``/etc/resolv.conf`` must still resolve names: on systemd machines it
    is a link into ``/run``, which the sandbox covers, so its target is bound back, read-only."""
    conf = Path("/etc/resolv.conf")
    if not conf.is_symlink():
        return []
    target = os.path.realpath(conf)
    if target.startswith("/run/") and Path(target).is_file():
        return ["--ro-bind", target, target]
    return []
