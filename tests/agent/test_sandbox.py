"""The sandbox where the machine has one (bwrap), and the fallback always.

Commands run through the real Bash tool, as a session runs them. A test of a sandbox kind this
machine cannot start is skipped, saying why; the fallback is forced with ``TRACER_SANDBOX=none``.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.sandbox import Sandbox, allowlisted_environ
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.files.paths import ROOT
from tracer.record.workspace import SessionDirs

SECRET = "sandbox-secret-0123456789"


def _sandbox(kind: str, allow_network: bool = False) -> Sandbox:
    found = find_sandbox(allow_network, choice=kind)
    if found is None:
        pytest.skip(f"{kind} cannot start a sandbox on this machine")
    return found


def _run(ctx: ToolContext, command: str) -> dict[str, Any]:
    return BashTool().call({"command": command}, ctx)


@pytest.fixture
def workspace() -> Iterator[Path]:
    # A session's own folder: as root, the sandbox's uid must be able to reach its workspace.
    dirs = SessionDirs.create()
    yield dirs.workspace
    dirs.cleanup()


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback server that accepts one connection and says hello."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(30)

    def serve() -> None:
        try:
            conn, _ = server.accept()
            conn.sendall(b"hello\n")
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    server.close()


def _connect(port: int) -> str:
    return (
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f'{port}), timeout=5); print(s.recv(10).decode().strip())"'
    )


@pytest.mark.parametrize("kind", ["bwrap"])
def test_the_recorders_environment_and_processes_are_out_of_sight(
    kind: str, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_PASSWD", SECRET)
    ctx = ToolContext(workspace=workspace, sandbox=_sandbox(kind))
    # Read every process's environment the sandbox lets us see, the parent's included.
    out = _run(ctx, "cat /proc/$PPID/environ /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'")
    assert out["exit_code"] == 0, out
    assert "PATH=" in out["stdout"]  # it did read environments: only the allowlisted ones
    assert SECRET not in out["stdout"] and "MY_PASSWD" not in out["stdout"]
    pids = _run(ctx, "ls /proc | grep -c '^[0-9]'")["stdout"]
    assert int(pids) < 10  # a fresh PID namespace, not the machine's processes


@pytest.mark.parametrize("kind", ["bwrap"])
def test_the_network_is_off_unless_allowed(kind: str, workspace: Path, listener: int) -> None:
    walled = ToolContext(workspace=workspace, sandbox=_sandbox(kind))
    refused = _run(walled, _connect(listener))
    assert refused["exit_code"] != 0 and "hello" not in refused["stdout"]
    open_ctx = ToolContext(workspace=workspace, sandbox=_sandbox(kind, allow_network=True))
    assert _run(open_ctx, _connect(listener))["stdout"].strip() == "hello"


def test_with_bwrap_the_workspace_is_the_only_writable_place(workspace: Path) -> None:
    ctx = ToolContext(workspace=workspace, sandbox=_sandbox("bwrap"))
    beside = workspace.parent / "beside.txt"  # /tmp is a private, throwaway tmpfs inside
    elsewhere = ROOT / ".sandbox-write-probe"  # the rest of the disk is read-only
    try:
        out = _run(ctx, f"echo in > inside.txt && echo b > {beside}; echo e > {elsewhere}")
        assert (workspace / "inside.txt").read_text() == "in\n"
        assert not beside.exists() and not elsewhere.exists()
        # Read-only, or not there at all when the checkout itself lies under the private /tmp.
        assert any(
            why in out["stderr"] for why in ("Read-only file system", "No such file or directory")
        ), out["stderr"]
    finally:
        elsewhere.unlink(missing_ok=True)


def test_without_a_sandbox_commands_still_get_only_the_allowlist(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACER_SANDBOX", "none")
    assert find_sandbox() is None
    monkeypatch.setenv("MY_PASSWD", SECRET)
    ctx = ToolContext(workspace=workspace, sandbox=find_sandbox())
    out = _run(ctx, "env")
    assert SECRET not in out["stdout"] and f"HOME={workspace}" in out["stdout"]


def test_allowlisted_environ_keeps_the_locale_and_drops_the_rest() -> None:
    source = {"PATH": "/bin", "LC_TIME": "C", "LANG": "C.UTF-8", "GH_PAT": "x", "EDITOR": "vi"}
    env = allowlisted_environ(Path("/ws"), {"TZ": "UTC"}, source)
    assert env == {"PATH": "/bin", "LC_TIME": "C", "LANG": "C.UTF-8", "HOME": "/ws", "TZ": "UTC"}


def test_record_says_in_one_line_when_there_is_no_sandbox(
    tracer_cli: Any, write_scenario: Any, open_recording: Any, tmp_path: Path
) -> None:
    scenario = write_scenario(
        {
            "sandbox": True,
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo hi"}}]},
                {"text": "ok"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli(
        "record", "--scenario", str(scenario), "-o", str(out), env={"TRACER_SANDBOX": "none"}
    )
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "sandbox" in line]
    assert len(notes) == 1 and "no sandbox available" in notes[0]
    assert "write outside the workspace" in notes[0]  # what it means
    rec = open_recording(out)
    assert rec.reader.header["source"]["sandbox"] == "none"
    assert rec.one("tool_run").output["stdout"] == "hi\n"


def test_a_scenario_can_opt_into_the_sandbox(
    tracer_here: Any, write_scenario: Any, open_recording: Any, tmp_path: Path
) -> None:
    _sandbox("bwrap")
    scenario = write_scenario(
        {
            "sandbox": True,
            "permissions": {"allow": ["Bash"]},
            "workspace": {"setup": ["echo $$ > setup-pid"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "cat setup-pid; echo $$"}}]},
                {"text": "ok"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_here("record", "--scenario", str(scenario), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    rec = open_recording(out)
    assert rec.reader.header["source"]["sandbox"].startswith("bwrap")
    # Set-up and Bash each saw a fresh PID namespace: small pids, not the machine's.
    assert all(int(n) < 10 for n in rec.one("tool_run").output["stdout"].split())


def test_the_cli_flags_reach_the_sandbox(
    tracer_here: Any, write_scenario: Any, open_recording: Any, tmp_path: Path, listener: int
) -> None:
    _sandbox("bwrap")
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": _connect(listener)}}]},
                {"text": "ok"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    args = ["record", "--scenario", str(scenario), "-o", str(out), "--sandbox"]
    proc = tracer_here(*args, "--allow-network")
    assert proc.returncode == 0, proc.stderr
    rec = open_recording(out)
    assert "network on" in rec.reader.header["source"]["sandbox"]
    assert rec.one("tool_run").output["stdout"] == "hello\n"


def test_record_prompt_uses_a_sandbox_by_default(
    tracer_cli: Any, open_recording: Any, tmp_path: Path
) -> None:
    # Nothing listens on the discard port: the session ends with a model error at once, but
    # its header already says how Bash would have run.
    out = tmp_path / "p.trace.jsonl"
    proc = tracer_cli(
        "record",
        "--prompt",
        "hi",
        "-o",
        str(out),
        env={"ANTHROPIC_API_KEY": "sk-ant-test-0000", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
    )
    assert "Traceback" not in proc.stderr
    walls = find_sandbox()
    expected = walls.describe() if walls else "none"
    assert open_recording(out).reader.header["source"]["sandbox"] == expected
    assert ("no sandbox available" in proc.stderr) == (walls is None)
    assert b"sk-ant-test-0000" not in out.read_bytes()


@pytest.mark.parametrize("kind", ["bwrap"])
def test_the_timeout_kills_everything_in_the_sandbox(kind: str, workspace: Path) -> None:
    ctx = ToolContext(workspace=workspace, sandbox=_sandbox(kind))
    seconds = f"{4000 + os.getpid() % 1000}.5"  # a length of our own
    out = BashTool().call({"command": f"setsid sleep {seconds} & sleep 60", "timeout": 500}, ctx)
    assert out["interrupted"] is True
    assert not _sleeping(seconds)


def _sleeping(seconds: str) -> bool:
    for pid in Path("/proc").iterdir():
        try:
            argv = (pid / "cmdline").read_bytes().split(b"\0")
            state = (pid / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if argv[:2] == [b"sleep", seconds.encode()] and state != b"Z":
            return True
    return False


def test_a_scenario_runs_in_the_sandbox_by_default(record: Any) -> None:
    walls = _sandbox("bwrap")
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "id -u; echo $$"}}]},
                {"text": "ok"},
            ],
        }
    )
    uid, pid = rec.one("tool_run").output["stdout"].split()
    assert uid == "65534" and int(pid) < 10, walls.describe()
    assert "sandbox" not in rec.reader.header["source"]  # not asked: the header stays as it was


def test_no_sandbox_says_in_one_line_what_it_gives_up(
    tracer_cli: Any, write_scenario: Any, open_recording: Any, tmp_path: Path
) -> None:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo $$"}}]},
                {"text": "ok"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(out), "--no-sandbox")
    assert proc.returncode == 0, proc.stderr
    (note,) = [line for line in proc.stderr.splitlines() if line.startswith("tracer: note:")]
    assert note.startswith("tracer: note: sandbox off:")
    if os.geteuid() == 0:  # root's commands drop to a uid of their own (test_attack_rootdrop)
        assert "unprivileged uid" in note and "cannot write the trace" in note
    else:
        assert "/proc/$PPID" in note
    rec = open_recording(out)
    assert rec.reader.header["source"]["sandbox"] == "off"
    assert int(rec.one("tool_run").output["stdout"]) > 10  # the machine's PIDs


def test_the_unshare_fallback_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    # It mapped the command to root in its namespace (which can unmount /proc) and left the
    # disk writable; asking for it now means no sandbox, said as such.
    assert find_sandbox(choice="unshare") is None
    monkeypatch.setenv("TRACER_SANDBOX", "unshare")
    assert find_sandbox() is None
