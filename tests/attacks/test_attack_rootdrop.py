"""Attacks by root's commands where there is no sandbox (``TRACER_SANDBOX=none``).

As root without bwrap, each command drops to a uid of its session's own
(:mod:`tracer.agent.unprivileged`). These run the real Bash tool and the real recorder, as root
would, and try what root's commands used to manage: append to the trace by its path, read a file
only root may read, signal root's processes, follow a link the recorder would give away. Skipped
when not root (nothing is dropped then, and the unit tests at the end check that).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import seccomp, unprivileged
from tracer.agent.sandbox import launch
from tracer.agent.sandbox_choice import no_sandbox_note
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.record.workspace import SessionDirs

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root's commands are dropped")
SECRET = "rootdrop-secret-0123456789"


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every uid may cross and list (under pytest's own, which only root may cross),
    so that what stops a command below is the wall under test, not the way there."""
    folder = Path(tempfile.mkdtemp(prefix="tracer-test-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


@pytest.fixture
def ctx() -> Iterator[ToolContext]:
    dirs = SessionDirs.create()
    yield ToolContext(workspace=dirs.workspace, sandbox=None)
    dirs.cleanup()


def _run(ctx: ToolContext, command: str) -> dict[str, Any]:
    out = BashTool().call({"command": command, "timeout": 20_000}, ctx)
    assert out["interrupted"] is False, out
    return out


@as_root
def test_a_command_runs_as_the_sessions_own_uid_without_privileges(ctx: ToolContext) -> None:
    who = unprivileged.identity_for(ctx.workspace)
    out = _run(
        ctx, "id -u; id -g; id -G; grep -E '^(CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status"
    )
    lines = out["stdout"].split("\n")
    assert lines[:3] == [str(who.uid), str(who.gid), str(who.gid)]  # no supplementary group
    status = dict(line.split(":\t") for line in lines[3:] if line)
    assert status["CapEff"] == status["CapPrm"] == "0000000000000000"
    assert status["NoNewPrivs"] == "1"
    assert status["Seccomp"] == ("2" if unprivileged.loadable_filter() else "0")
    assert unprivileged.FIRST_ID <= who.uid < unprivileged.FIRST_ID + unprivileged.ID_COUNT


@as_root
def test_each_workspace_has_its_own_uid_for_good(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first = unprivileged.identity_for(a)
    assert unprivileged.identity_for(a) == first
    assert unprivileged.identity_for(b).uid != first.uid


@as_root
def test_the_trace_cannot_be_written_by_its_path(
    tracer_cli: Any, write_scenario: Any, open_recording: Any, open_folder: Path
) -> None:
    trace = open_folder / "run.trace.jsonl"
    command = f"echo HACKED >> {trace}; echo rc=$?; id -u"
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ],
        }
    )
    proc = tracer_cli(
        "record", "--scenario", str(scenario), "-o", str(trace), env={"TRACER_SANDBOX": "none"}
    )
    assert proc.returncode == 0, proc.stderr
    assert b"\nHACKED" not in trace.read_bytes()
    output = open_recording(trace).one("tool_run").output
    assert "rc=1" in output["stdout"] and "Permission denied" in output["stderr"]
    assert output["stdout"].split()[-1] != "0"


@as_root
def test_the_workspace_and_its_given_files_are_writable(
    record: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scenario's files, a set-up command's and a Write of the recorder's (all made by root)
    # are the command's to change; so is a new file; set-up ran as the same uid as Bash.
    monkeypatch.setenv("TRACER_SANDBOX", "none")
    command = (
        "echo more >> given.txt && echo more >> sub/made.txt && echo more >> written.txt && "
        "echo new > $HOME/new.txt && cat given.txt sub/made.txt written.txt new.txt && "
        "cat setup-uid && id -u"
    )
    rec = record(
        {
            "permissions": {"allow": ["Bash", "Write"]},
            "workspace": {
                "files": {"given.txt": "given\n"},
                "setup": ["mkdir sub && echo made > sub/made.txt && id -u > setup-uid"],
            },
            "responses": [
                {
                    "tool_use": [
                        {"name": "Write", "input": {"file_path": "written.txt", "content": "w\n"}}
                    ]
                },
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ],
        }
    )
    (out,) = [e.output for e in rec.of("tool_run") if e.tool == "Bash"]
    lines = out["stdout"].split()
    assert lines[:7] == ["given", "more", "made", "more", "w", "more", "new"], out
    assert lines[7] == lines[8] != "0"


@as_root
def test_a_file_only_root_may_read_stays_unread(ctx: ToolContext, open_folder: Path) -> None:
    secret = open_folder / "root-only.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    out = _run(ctx, f"cat {secret}; ls /root; cat /etc/shadow")
    assert SECRET not in out["stdout"]
    assert out["stderr"].count("Permission denied") == 2 + (os.stat("/root").st_mode & 0o004 == 0)


@as_root
def test_roots_processes_cannot_be_signalled(ctx: ToolContext) -> None:
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        out = _run(ctx, f"kill -9 {sleeper.pid}; echo rc=$?")
        assert "rc=1" in out["stdout"] and "Operation not permitted" in out["stderr"]
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


@as_root
def test_a_planted_hard_link_is_not_given_away(ctx: ToolContext, open_folder: Path) -> None:
    # An outside file of root's, linked into the workspace (as a command could where
    # protected_hardlinks is off) and a symlink to it: the hand-over gives neither away.
    outside = open_folder / "roots.txt"
    outside.write_text("root's\n")
    os.link(outside, ctx.workspace / "linked.txt")
    (ctx.workspace / "pointer.txt").symlink_to(outside)
    out = _run(ctx, "echo x >> linked.txt; echo x >> pointer.txt; echo done")
    assert out["stdout"] == "done\n" and out["stderr"].count("Permission denied") == 2
    assert outside.stat().st_uid == 0 and outside.read_text() == "root's\n"


@as_root
@pytest.mark.skipif(seccomp.program() is None, reason="no seccomp table for this machine")
def test_unix_sockets_and_ptrace_are_refused_too(ctx: ToolContext) -> None:
    if unprivileged.loadable_filter() is None:
        pytest.skip("the kernel refuses the seccomp filter here")
    code = (
        "import ctypes, socket\n"
        "try:\n    socket.socket(socket.AF_UNIX)\n    print('unix open')\n"
        "except PermissionError:\n    print('unix refused')\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('ptrace', libc.ptrace(0, 0, 0, 0), ctypes.get_errno())\n"  # PTRACE_TRACEME
    )
    (ctx.workspace / "probe.py").write_text(code)
    out = _run(ctx, "python3 probe.py")
    assert out["stdout"].split("\n")[:2] == ["unix refused", "ptrace -1 1"], out


def test_when_not_root_nothing_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unprivileged, "needed", lambda: False)
    monkeypatch.setattr("tracer.agent.sandbox.capped", _uncapped)
    with launch(["true"], tmp_path, None) as (argv, fds):
        assert argv[-1] == "true" and unprivileged._TRAMPOLINE not in argv and fds == ()
    assert tmp_path.stat().st_uid == os.geteuid()  # nothing handed over


def test_the_notes_say_what_each_case_keeps() -> None:
    for chosen in (False, True):
        root, user = no_sandbox_note(chosen, as_root=True), no_sandbox_note(chosen, as_root=False)
        assert "unprivileged uid" in root and "cannot write the trace" in root
        assert "unprivileged uid" not in user
        assert "network" in root and "network" in user  # neither hides it


def _uncapped(argv: list[str], *_totals: Any) -> Any:
    import contextlib

    return contextlib.nullcontext(argv)
