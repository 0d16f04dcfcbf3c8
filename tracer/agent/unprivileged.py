"""As root with no namespace sandbox: each session's commands under a uid of their own.

bwrap makes a command ``nobody`` without capabilities. Where bwrap cannot start (or
``TRACER_SANDBOX=none``, ``--no-sandbox``), a command started by root would *be* root: it could
append to the trace by its path, read ``/root``, kill the recorder. So when tracer runs as root
and there is no sandbox, every Bash and set-up command drops to an unprivileged identity before
it runs, the way a service manager starts a service under ``User=`` (and Codex's Linux sandbox
refuses to run as root at all):

* **A uid and gid of the session's own**, picked once per workspace from a block no system hands
  out (systemd leaves ``0x70000000``–``0x7FFDFFFF`` unused; users live at 1000–60000, ``nobody``
  at 65534), checked against the user and group databases and the running processes. Not
  ``nobody`` itself: commands of two sessions, or a daemon that runs as ``nobody``, would then
  be one user, free to signal and trace each other.
* **No supplementary group**, ``PR_SET_NO_NEW_PRIVS`` (a set-uid ``sudo`` or ``su`` gains
  nothing) and, where :mod:`tracer.agent.seccomp` has a table and the kernel takes it, the same
  seccomp filter bwrap loads.
* **The workspace is handed over**: before each command, every entry root owns in it (the
  scenario's files, what Write and Edit made) becomes the uid's, so the command can change what
  a sandboxed one could. The walk goes by file descriptor (``os.fwalk``, ``O_NOFOLLOW``) and skips
  a file with a second hard link, so a link planted by an earlier command never makes the
  recorder give away a file from outside. The workspace is the session's throwaway copy, so it
  is given for good.

What it leaves the command: a uid that owns nothing outside its workspace, so the trace, the
recorder's files and ``HOME`` cannot be written, ``/root`` cannot be read, and no process of
root's (nor of another session) can be signalled or traced. What it does not hide: what every
user may read, every process in ``ps``, the world-writable ``/tmp``, and the network. Only the
sandbox hides those.

The drop happens in the command's own process, by a few lines of Python that ``exec`` it (as
:mod:`tracer.agent.limits` sets its limits): the pids cgroup must be joined as root first, and
``preexec_fn`` is unsafe in a program with threads. When tracer is not root, nothing here runs.
"""

from __future__ import annotations

import contextlib
import functools
import grp
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from tracer.agent import seccomp
from tracer.agent.processes import run_command

#: The block the ids come from, and its size.
FIRST_ID = 0x70000000
ID_COUNT = 1 << 24

# Everything it needs is imported before the drop: once it is no longer root, the interpreter's
# own library may be out of its reach (a Python installed under /root), and ``os.execvp``
# imports ``warnings`` on its way.
_TRAMPOLINE = """\
import ctypes, os, sys, warnings
uid, gid, program = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
try:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise OSError(0, 'root came back')
    if sys.platform.startswith('linux'):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), 'PR_SET_NO_NEW_PRIVS')
        if program != '-':
            code = bytes.fromhex(program)
            class Prog(ctypes.Structure):
                _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_char_p)]
            prog = Prog(len(code) // 8, code)
            if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
                raise OSError(ctypes.get_errno(), 'PR_SET_SECCOMP')
except OSError as exc:
    sys.stderr.write(f'tracer: cannot drop to uid {uid}: {exc}\\n')
    os._exit(126)
os.execvp(sys.argv[4], sys.argv[4:])
"""


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a session's commands run as."""

    uid: int
    gid: int


def needed() -> bool:
    """Must commands be dropped? Only when tracer runs as root."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


_owners: dict[str, Identity] = {}
_lock = threading.Lock()


def identity_for(workspace: Path) -> Identity:
    """The identity of ``workspace``'s commands: the same for the whole session."""
    key = os.path.realpath(workspace)
    with _lock:
        who = _owners.get(key)
        if who is None:
            who = _owners[key] = _unused({w.uid for w in _owners.values()})
        return who


def _unused(given: set[int]) -> Identity:
    running = _process_uids()
    for _ in range(1000):
        n = FIRST_ID + secrets.randbelow(ID_COUNT)
        if n not in given and n not in running and not _named(n):
            return Identity(n, n)
    raise OSError("no unused uid left for commands")  # a million-to-one; never a root command


def _named(n: int) -> bool:
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(n)
            return True
        except (KeyError, OverflowError):
            continue
    return False


def _process_uids() -> set[int]:
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError):
                    found.add(os.stat(f"/proc/{name}").st_uid)
    return found


def hand_over(workspace: Path, who: Identity) -> None:
    """Give ``who`` every entry of ``workspace`` that root owns (the workspace itself: closed to
    everyone else). A file with more than one link, or a folder on another device, is left."""
    top = str(workspace)
    try:
        device = os.stat(top, follow_symlinks=False).st_dev
    except OSError:
        return
    for path, _dirs, files, fd in os.fwalk(top, follow_symlinks=False):
        here = os.fstat(fd)
        if here.st_uid == 0 and here.st_dev == device:
            with contextlib.suppress(OSError):
                os.fchown(fd, who.uid, who.gid)
                if path == top:
                    os.fchmod(fd, stat.S_IMODE(here.st_mode) & 0o700)
        for name in files:
            _give(name, fd, who)


def _give(name: str, folder: int, who: Identity) -> None:
    try:
        if not _ours(os.stat(name, dir_fd=folder, follow_symlinks=False)):
            return
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=folder)
    except OSError:
        return
    try:
        # Checked again on the descriptor: what is changed is what was checked.
        if _ours(os.fstat(fd)):
            os.fchown(fd, who.uid, who.gid)
    except OSError:
        pass
    finally:
        os.close(fd)


def _ours(st: os.stat_result) -> bool:
    """A plain file of root's with one name only: one the recorder made in the workspace."""
    return st.st_uid == 0 and stat.S_ISREG(st.st_mode) and st.st_nlink == 1


def dropped(argv: list[str], who: Identity, program: bytes | None) -> list[str]:
    """``argv`` started as ``who``, with no groups, no new privileges and ``program`` loaded."""
    hexed = program.hex() if program else "-"
    return [sys.executable, "-I", "-S", "-c", _TRAMPOLINE, str(who.uid), str(who.gid), hexed, *argv]


def as_user(argv: list[str], who: Identity) -> list[str]:
    """``argv`` (bwrap) started as ``who``, with no groups and no new privileges, and no filter:
    bwrap must still make its namespaces, and loads the filter itself. ``setpriv`` (util-linux)
    where it exists, a C program that costs a millisecond; otherwise the Python trampoline."""
    tool = _setpriv()
    if tool is None:
        return dropped(argv, who, None)
    return [
        tool,
        f"--reuid={who.uid}",
        f"--regid={who.gid}",
        "--clear-groups",
        "--no-new-privs",
        "--",
        *argv,
    ]


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv")


def wrap(argv: list[str], workspace: Path) -> list[str]:
    """``argv`` as it must start without a sandbox: as root, dropped (the workspace handed over
    first); otherwise unchanged."""
    if not needed():
        return argv
    who = identity_for(workspace)
    hand_over(workspace, who)
    _say_if_closed_above(os.path.realpath(workspace), who.uid, who.gid)
    return dropped(argv, who, loadable_filter())


@functools.cache
def _say_if_closed_above(workspace: str, uid: int, gid: int) -> None:
    """Said once per workspace: a folder above it that only root may cross (a session's own
    folder is crossable; a library caller's may not be). The command still starts inside it,
    but cannot reach it by its full path."""
    folder = closed_above(workspace, Identity(uid, gid))
    if folder is not None:
        print(
            f"tracer: note: {folder} is closed to uid {uid}: commands start in {workspace} "
            "but cannot reach it by its full path",
            file=sys.stderr,
        )


def closed_above(workspace: str, who: Identity) -> Path | None:
    """The first folder above ``workspace`` that ``who`` may not cross, or ``None``."""
    for folder in Path(workspace).parents:
        try:
            st = folder.stat()
        except OSError:
            return folder
        if st.st_uid == who.uid:
            bit = stat.S_IXUSR
        elif st.st_gid == who.gid:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return folder
    return None


@functools.cache
def loadable_filter() -> bytes | None:
    """The seccomp filter, once the kernel has been seen to take it (tried once, for real)."""
    program = seccomp.program()
    if program is None:
        return None
    try:  # run as a tool's command runs: a stop signal in the middle leaves nothing behind
        probe = run_command(
            dropped(["true"], Identity(65534, 65534), program),
            cwd=Path("/"),
            env={"PATH": os.environ.get("PATH", os.defpath)},
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        probe = None
    if probe is None or probe.returncode != 0 or probe.timed_out:
        print(
            "tracer: note: the seccomp filter does not load here: commands run without it",
            file=sys.stderr,
        )
        return None
    return program
