"""Attacks on the host through the sandbox's user, as root runs tracer (issue 31, point 1).

bwrap started by root maps the command's ``nobody`` onto the host's uid 0: no capability, yet
every file it made was root's on the host and every root-only file was its to read, and a
set-uid copy of bash left in a world-reachable workspace gave any local user root. Now bwrap
starts as the session's own unprivileged uid (:mod:`tracer.agent.unprivileged`). These run the
real Bash tool in the real sandbox, and the real recorder killed with SIGKILL. Skipped when not
root (nothing changes then) or where bwrap cannot start.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import unprivileged
from tracer.agent.sandbox import Sandbox
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.files.paths import ROOT
from tracer.record.workspace import OWNER_FILE, SessionDirs

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root's sandbox mapped onto uid 0")
SECRET = "host-uid-secret-0123456789"


@pytest.fixture
def walls() -> Sandbox:
    found = find_sandbox()
    if found is None:
        pytest.skip("bwrap cannot start a sandbox on this machine")
    return found


@pytest.fixture
def dirs() -> Iterator[SessionDirs]:
    made = SessionDirs.create()
    yield made
    made.cleanup()


def _run(ctx: ToolContext, command: str) -> dict[str, Any]:
    out = BashTool().call({"command": command, "timeout": 20_000}, ctx)
    assert out["interrupted"] is False, out
    return out


@as_root
def test_files_the_command_makes_are_not_roots_on_the_host(
    dirs: SessionDirs, walls: Sandbox
) -> None:
    ctx = ToolContext(workspace=dirs.workspace, sandbox=walls)
    # Write (the recorder's, as root) made given.txt: the command may still change it.
    (dirs.workspace / "given.txt").write_text("given\n")
    out = _run(ctx, "touch made && mkdir sub && echo more >> given.txt && id -u")
    assert out["exit_code"] == 0, out
    assert out["stdout"].strip() == "65534"  # nobody inside
    who = unprivileged.identity_for(dirs.workspace)
    assert who.uid != 0
    for name in ("made", "sub", "given.txt"):
        owner = (dirs.workspace / name).stat()
        assert (owner.st_uid, owner.st_gid) == (who.uid, who.gid), name
    assert (dirs.workspace / "given.txt").read_text() == "given\nmore\n"  # root still reads it


@as_root
def test_a_setuid_copy_of_bash_gives_no_one_root(dirs: SessionDirs, walls: Sandbox) -> None:
    ctx = ToolContext(workspace=dirs.workspace, sandbox=walls)
    out = _run(
        ctx,
        "cp /bin/bash rootsh && chmod 4755 rootsh && ./rootsh -p -c 'id -u' && "
        'grep " $PWD " /proc/self/mountinfo',
    )
    assert out["exit_code"] == 0, out
    uid_inside, mount = out["stdout"].strip().split("\n")[:2]
    assert uid_inside == "65534"
    options = mount.split()[5].split(",")
    assert "nosuid" in options and "nodev" in options  # inside: set-uid bits mean nothing
    made = (dirs.workspace / "rootsh").stat()
    assert made.st_mode & stat.S_ISUID  # the attack itself worked: the bit is set...
    assert made.st_uid != 0  # ...on a file that is not root's
    # On the host, the workspace is closed to every other user: no one else reaches the file.
    assert stat.S_IMODE(dirs.workspace.stat().st_mode) == 0o700
    assert stat.S_IMODE(dirs.root.stat().st_mode) & 0o007 == 0
    # (setpriv keeps root's capabilities until its own exec, so the stranger's shell execs it.)
    stranger = subprocess.run(
        ["setpriv", "--reuid=12345", "--regid=12345", "--clear-groups", "--",
         "sh", "-c", 'exec "$0" -p -c "id -u"', str(dirs.workspace / "rootsh")],
        capture_output=True, text=True, timeout=20, check=False,
    )  # fmt: skip
    assert stranger.returncode != 0 and "Permission denied" in stranger.stderr
    # And run by the host's root (who can reach it), it runs as its owner: never as uid 0.
    owner = subprocess.run(
        [str(dirs.workspace / "rootsh"), "-p", "-c", "id -u"],
        capture_output=True, text=True, timeout=20, check=False,
    )  # fmt: skip
    assert owner.stdout.strip() in ("0", str(made.st_uid))  # root stays root, nothing gained


@as_root
def test_a_root_only_file_is_unreadable(dirs: SessionDirs, walls: Sandbox) -> None:
    # Planted outside every covered place, in an open folder, 0600 and root's.
    folder = Path(tempfile.mkdtemp(prefix="tracer-test-", dir="/var/tmp"))
    try:
        folder.chmod(0o755)
        planted = folder / "root-only.txt"
        planted.write_text(SECRET)
        planted.chmod(0o600)
        ctx = ToolContext(workspace=dirs.workspace, sandbox=walls)
        out = _run(ctx, f"cat {planted}; echo rc=$?")
        assert "rc=1" in out["stdout"] and "Permission denied" in out["stderr"]
        assert SECRET not in out["stdout"] + out["stderr"]
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


@as_root
def test_a_killed_recorders_workspace_is_removed_by_the_next_run(
    write_scenario: Any, tmp_path: Path, walls: Sandbox
) -> None:
    command = "cp /bin/bash rootsh && chmod 4755 rootsh && touch ready && sleep 120"
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ],
        }
    )
    argv = [sys.executable, "-m", "tracer", "record", "--scenario"]
    # A parent of the test's own, so that no other test's recorder removes the folder first.
    sessions = Path(tempfile.mkdtemp(prefix="tracer-test-", dir="/tmp"))
    sessions.chmod(0o755)
    env = {**os.environ, "TRACER_SESSIONS_DIR": str(sessions)}
    recorder = subprocess.Popen(
        [*argv, str(scenario), "-o", str(tmp_path / "killed.trace.jsonl")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        left = _session_of(sessions, recorder.pid, margin_s=60)
        deadline = time.monotonic() + 60  # a margin: the command itself takes milliseconds
        while not (left / "workspace" / "ready").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (left / "workspace" / "rootsh").exists()
    finally:
        recorder.send_signal(signal.SIGKILL)
        recorder.wait(timeout=30)
    assert left.exists()  # killed outright: nothing cleaned up

    quick = write_scenario({"responses": [{"text": "done"}]})
    after = subprocess.run(
        [*argv, str(quick), "-o", str(tmp_path / "next.trace.jsonl")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    subprocess.run(["rm", "-rf", str(sessions)], check=False)
    assert after.returncode == 0, after.stderr
    assert not left.exists()
    said = [line for line in after.stderr.splitlines() if str(left) in line]
    assert said == [
        f"tracer: note: removed {left}, the workspace of a recorder that was killed "
        f"(pid {recorder.pid})"
    ]


def _session_of(sessions: Path, pid: int, margin_s: float) -> Path:
    """The session folder whose recorder file names ``pid`` (waited for, with a margin)."""
    deadline = time.monotonic() + margin_s
    while time.monotonic() < deadline:
        for folder in sessions.glob("tracer-*"):
            try:
                if (folder / OWNER_FILE).read_text().split()[0] == str(pid):
                    return folder
            except (OSError, IndexError):
                continue
        time.sleep(0.05)
    raise AssertionError(f"recorder {pid} made no session folder")


def test_a_live_recorders_folder_and_foreign_folders_are_left(tmp_path: Path) -> None:
    from tracer.record.workspace import remove_stale

    live = tmp_path / "tracer-live"
    live.mkdir()
    (live / OWNER_FILE).write_text(_mark(os.getpid()))
    foreign = tmp_path / "tracer-foreign"  # no recorder file: not ours to judge
    foreign.mkdir()
    dead = tmp_path / "tracer-dead"
    dead.mkdir()
    (dead / "workspace").mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()
    (dead / OWNER_FILE).write_text(f"{gone.pid} 1")
    reused = tmp_path / "tracer-reused"  # our pid, another start time: a pid used again
    reused.mkdir()
    (reused / OWNER_FILE).write_text(f"{os.getpid()} 1")
    assert sorted(remove_stale(tmp_path)) == sorted([dead, reused])
    assert live.exists() and foreign.exists()


def _mark(pid: int) -> str:
    from tracer.record.workspace import _owner_mark

    mark = _owner_mark(pid)
    assert mark is not None
    return mark
