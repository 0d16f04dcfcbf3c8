"""The project ``record --workspace DIR`` copies in: which folders are refused, and the copy.

Whatever the workspace holds, the AI may read, and what it reads goes into the trace. So before
``DIR`` is copied into the session's throwaway workspace (:mod:`tracer.record.workspace`),
:func:`refuse_source` turns away with one line the folders that must never be copied: the root,
the home folder and any folder that holds it, and the system folders (``/`` would copy the
whole disk, ``/etc`` would put ``/etc/shadow`` in a trace). Places that hold secrets are turned
away too unless ``--i-know`` is given: the trees of logs, databases and root's own files, a path
through a folder of keys (``.ssh``, ``.aws``), and a folder holding a file of passwords or
tokens (``.netrc``, ``.git-credentials``, ``.npmrc``), looked for among its first
:data:`CREDENTIAL_SCAN_LIMIT` entries. :func:`copy_source` then copies links as links (the tools
refuse any that leads outside) and leaves out FIFOs, sockets and devices.

Claude Code has no such copy step (it works in the folder it was started in); its nearest
relative is the check in ``utils/permissions/filesystem.ts`` that keeps writes in the project.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from tracer.errors import UserError

#: Folders that are refused as a whole, and everything below them.
SYSTEM_TREES = ("/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/usr", "/bin", "/sbin", "/lib")
#: Folders refused themselves (their sub-folders may be projects: /srv/site, /opt/app).
SYSTEM_FOLDERS = ("/", "/var", "/root", "/opt", "/srv", "/home", "/tmp", "/mnt", "/media")
#: Trees that hold a machine's or a user's secrets: refused, and everything below them, unless
#: ``--i-know`` is given (logs, databases and root's own files under /var and /root).
SENSITIVE_TREES = ("/etc", "/var", "/root", "/proc", "/sys", "/dev")
#: Folder names that hold keys and credentials, wherever they are (``~/.ssh``, ``~/.aws``):
#: a path through one, or a folder holding one (a home), is refused unless ``--i-know``.
SENSITIVE_NAMES = (".ssh", ".aws", ".gnupg", ".config", ".kube", ".docker")
#: Files that hold passwords and tokens in plain text (``machine … password …``, a URL with
#: ``user:token@``, ``//registry/:_authToken=``): a folder holding one anywhere is refused
#: unless ``--i-know``, like a folder holding ``.ssh``.
CREDENTIAL_FILES = (".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc")
#: The same for a path of two parts (Docker's registry logins).
CREDENTIAL_PATHS = ((".docker", "config.json"),)
#: How many entries of a folder are looked through for those files before it is copied.
CREDENTIAL_SCAN_LIMIT = 200_000


def refuse_source(source: Path, *, i_know: bool = False) -> Path:
    """``source`` resolved, or a :class:`UserError` saying why it cannot be a workspace.

    The root, the home folder (and what holds it) and the system folders are always refused;
    the places that hold secrets (:data:`SENSITIVE_TREES`, :data:`SENSITIVE_NAMES`) unless
    ``i_know``: whatever is copied goes to the model and into the trace.
    """
    if not source.is_dir():
        raise UserError("not a directory", source)
    real = Path(os.path.realpath(source))
    why = _always_refused(real)
    if why is None and not i_know:
        why = _sensitive(real)
        if why is not None:
            why += " (add --i-know to copy it anyway)"
    if why:
        raise UserError(
            f"--workspace refuses {real}: it is {why}; copy the project you want into a folder "
            "of its own and pass that",
        )
    return real


def _always_refused(real: Path) -> str | None:
    home = Path(os.path.realpath(Path.home())) if "HOME" in os.environ else None
    if str(real) in SYSTEM_FOLDERS or str(real) in SYSTEM_TREES:
        return "a system directory"
    for tree in SYSTEM_TREES:
        if tree not in SENSITIVE_TREES and real.is_relative_to(tree):
            return f"inside the system directory {tree}"
    if home is not None and (real == home or home.is_relative_to(real)):
        return "your home directory" if real == home else "a directory that holds your home"
    return None


def _sensitive(real: Path) -> str | None:
    for tree in SENSITIVE_TREES:
        if real == Path(tree) or real.is_relative_to(tree):
            return f"inside {tree}, where secrets live"
    for name in SENSITIVE_NAMES:
        if name in real.parts:
            return f"inside a {name} folder, where keys and credentials live"
        if (real / name).is_dir():
            return f"a folder holding {name} (a home directory?)"
    found = _credential_file(real)
    if found is not None:
        return f"a folder holding {found}, a file of passwords or tokens"
    return None


def _credential_file(real: Path) -> Path | None:
    """The first credential file under ``real`` (links not followed), relative to it."""
    seen = 0
    for folder, dirs, files in os.walk(real):
        here = Path(folder)
        for name in files:
            if name in CREDENTIAL_FILES or (here.name, name) in CREDENTIAL_PATHS:
                return (here / name).relative_to(real)
        seen += len(dirs) + len(files)
        if seen > CREDENTIAL_SCAN_LIMIT:
            break
    return None


def copy_source(source: Path, workspace: Path) -> None:
    """Copy a project into the workspace: symlinks as links (the tools refuse any that lead
    outside), and no FIFOs, sockets or devices (reading one would hang or never end)."""

    def special(folder: str, names: list[str]) -> list[str]:
        skipped = []
        for name in names:
            try:
                mode = os.lstat(os.path.join(folder, name)).st_mode
            except OSError:
                skipped.append(name)
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                skipped.append(name)
        return skipped

    try:
        shutil.copytree(source, workspace, dirs_exist_ok=True, symlinks=True, ignore=special)
    except (OSError, shutil.Error) as exc:
        raise UserError(f"could not copy the workspace: {_first_line(exc)}", source) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
