"""A session's workspace: its temporary folders, how it is filled, and its wall at the edges.

:class:`SessionDirs` is the throwaway home of one session; :func:`prepare_workspace` writes a
scenario's files and runs its set-up commands (walled in like Bash: allowlisted environment,
the session's sandbox, a timeout, secrets redacted from a failure's message).

The tools refuse paths outside the workspace (``ToolContext.resolve``); this module and
:mod:`tracer.record.workspace_source` guard the two ways in that the user controls. ``record
--workspace DIR`` copies ``DIR`` into the throwaway workspace, so ``/`` would copy the whole disk
and ``/etc`` would put ``/etc/shadow`` in a trace: the root, the home folder (and what holds it)
and the system folders are refused with one line (:mod:`~tracer.record.workspace_source`). A
scenario's ``workspace.files`` names are relative paths that must stay inside the workspace
(:func:`confined`).

Claude Code has no such copy step (it works in the folder it was started in); its nearest
relative is the check in ``utils/permissions/filesystem.ts`` that keeps writes in the project.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tracer.agent.processes import run_command
from tracer.agent.sandbox import Sandbox, allowlisted_environ, launch
from tracer.agent.totals import Totals
from tracer.agent.unprivileged import identity_for, needed
from tracer.chapter.scenario import Scenario, relative_inside
from tracer.errors import UserError
from tracer.interrupts import holding
from tracer.trace.redact import Redactor

#: Fixed identity and clock for set-up commands, so git hashes are the same on every run.
DETERMINISTIC_ENV = {
    "GIT_AUTHOR_NAME": "tracer",
    "GIT_AUTHOR_EMAIL": "tracer@example.invalid",
    "GIT_COMMITTER_NAME": "tracer",
    "GIT_COMMITTER_EMAIL": "tracer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-05-15T09:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-05-15T09:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "TERM": "dumb",
    "NO_COLOR": "1",
}


@dataclass
class SessionDirs:
    """A session's temporary home: ``workspace/`` (tools run here) and ``tool-results/``."""

    root: Path

    @classmethod
    def create(cls) -> SessionDirs:
        """The folders, made whole: a stop signal waits until they are returned, so that the
        caller's clean-up finds them (not one made and lost inside ``mkdtemp``)."""
        with holding():
            return cls._create()

    @classmethod
    def _create(cls) -> SessionDirs:
        # A fixed parent keeps path lengths equal from run to run, so request sizes match too
        # (TRACER_SESSIONS_DIR moves it: the tests keep the folders of killed recorders apart).
        base = os.environ.get("TRACER_SESSIONS_DIR") or ("/tmp" if os.path.isdir("/tmp") else None)
        remove_stale(Path(base or tempfile.gettempdir()))
        root = Path(tempfile.mkdtemp(prefix="tracer-", dir=base))
        (root / OWNER_FILE).write_text(_owner_mark(os.getpid()) or "")
        (root / "workspace").mkdir()
        if needed():
            # As root, commands run under a uid of the session's own (tracer.agent.unprivileged),
            # sandboxed or not. The session folder is root's and that uid's group's, 0710: that
            # uid may cross it to its workspace (0700, its own), nobody else may even cross it,
            # and the recorder's tool-results stay closed. Root reads everything regardless.
            who = identity_for(root / "workspace")
            os.chown(root, 0, who.gid)
            root.chmod(0o710)
            os.chown(root / "workspace", who.uid, who.gid)
            (root / "workspace").chmod(0o700)
            (root / "tool-results").mkdir(mode=0o700)
        return cls(root)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def tool_results(self) -> Path:
        return self.root / "tool-results"

    @property
    def env(self) -> dict[str, str]:
        """Fixed values on top of the allowlisted environment (``HOME`` is the workspace)."""
        return dict(DETERMINISTIC_ENV)

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


#: The file in a session folder naming the recorder that made it: its pid and start time.
OWNER_FILE = "recorder"


def _owner_mark(pid: int) -> str | None:
    """``pid`` and its start time (field 22 of ``/proc/PID/stat``): a pid used again by
    another process does not pass for the recorder."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            start = fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None
    return f"{pid} {start}"


@functools.cache
def remove_stale(base: Path) -> list[Path]:
    """Once per process: remove the session folders (ours, ``tracer-*`` under ``base``) whose
    recorder is gone, killed before it could clean up, and say so in one line each. Only a
    folder that names its recorder is touched, and never one whose recorder still runs."""
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for folder in entries:
        if not folder.name.startswith("tracer-"):
            continue
        try:
            if folder.is_symlink() or folder.stat().st_uid != os.geteuid():
                continue
            pid, _, _start = (folder / OWNER_FILE).read_text().partition(" ")
        except (OSError, UnicodeDecodeError):
            continue
        if not pid.isdigit() or _owner_mark(int(pid)) == f"{pid} {_start}":
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
            print(
                f"tracer: note: removed {folder}, the workspace of a recorder that was killed "
                f"(pid {pid})",
                file=sys.stderr,
            )
    return removed


SETUP_TIMEOUT_S = 120.0


def prepare_workspace(
    scenario: Scenario,
    dirs: SessionDirs,
    *,
    sandbox: Sandbox | None = None,
    redact: Redactor | None = None,
    totals: Totals | None = None,
) -> None:
    """Write the scenario's files and run its set-up commands for real (walled in like Bash)."""
    for name, content in scenario.workspace.files.items():
        target = confined(dirs.workspace, name)
        if target is None:
            raise UserError(
                f"workspace.files: {name!r} must be a relative path inside the workspace",
                scenario.path,
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    redact = redact or Redactor.from_environ()
    for command in scenario.workspace.setup:
        memory = (totals or Totals()).memory_bytes
        with launch(["bash", "-c", command], dirs.workspace, sandbox, memory) as (argv, fds):
            done = run_command(
                argv,
                cwd=dirs.workspace,
                env=allowlisted_environ(dirs.workspace, dirs.env),
                timeout=SETUP_TIMEOUT_S,
                pass_fds=fds,
            )
        if done.returncode != 0 or done.timed_out:
            text = (done.stderr or done.stdout).decode("utf-8", "replace")
            detail = text.strip().splitlines()
            last = "timed out" if done.timed_out else f"exit {done.returncode}"
            raise UserError(
                redact(
                    f"workspace set-up command failed ({command!r}): "
                    f"{detail[-1] if detail else last}"
                ),
                scenario.path,
            )


def confined(workspace: Path, name: str) -> Path | None:
    """Where a scenario file named ``name`` goes, or ``None`` when it would land outside."""
    if not relative_inside(name):
        return None
    target = workspace.joinpath(*PurePosixPath(name).parts)
    real_ws = Path(os.path.realpath(workspace))
    real = Path(os.path.realpath(target))
    return target if real == real_ws or real.is_relative_to(real_ws) else None
