"""Attacks on the sandbox, as root would make them: each must fail inside bwrap.

Run through the real Bash tool, as a session runs commands. Skipped (saying why) where bwrap
cannot start; CI runs as root, where these matter most: root inside a sandbox that drops
nothing can remount the disk writable and unmount /proc to see the host's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import seccomp, seccomp_tables
from tracer.agent.limits import MAX_FILE_BYTES, MAX_MEMORY_BYTES
from tracer.agent.sandbox import Sandbox
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.files.paths import ROOT
from tracer.record.workspace import SessionDirs

SECRET = "attack-secret-0123456789"


@pytest.fixture
def walls() -> Sandbox:
    found = find_sandbox()
    if found is None:
        pytest.skip("bwrap cannot start a sandbox on this machine")
    return found


@pytest.fixture
def ctx(walls: Sandbox) -> Iterator[ToolContext]:
    # A session's own folder: as root, the sandbox's uid must be able to reach its workspace.
    dirs = SessionDirs.create()
    yield ToolContext(workspace=dirs.workspace, sandbox=walls)
    dirs.cleanup()


def _run(ctx: ToolContext, command: str) -> dict[str, Any]:
    out = BashTool().call({"command": command, "timeout": 20_000}, ctx)
    assert out["interrupted"] is False, out
    return out


def test_no_capability_and_not_root(ctx: ToolContext) -> None:
    out = _run(ctx, "grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status; id -u")
    lines = out["stdout"].split("\n")
    assert all(line.split()[1] == "0000000000000000" for line in lines[:4]), out["stdout"]
    assert lines[4] == "65534"


def test_proc_cannot_be_unmounted_nor_the_disk_remounted(ctx: ToolContext) -> None:
    out = _run(
        ctx,
        "umount -l /proc; echo u=$?; mount -o remount,rw /; echo r=$?; "
        "mount -o remount,rw,bind /; echo b=$?; ls /proc | grep -c '^[0-9]'",
    )
    assert "u=0" not in out["stdout"] and "r=0" not in out["stdout"]
    assert "b=0" not in out["stdout"]
    assert int(out["stdout"].split()[-1]) < 10  # still the sandbox's own /proc


def test_no_way_out_through_a_new_user_namespace(ctx: ToolContext) -> None:
    out = _run(ctx, "unshare -Urm sh -c 'umount -l /proc && mount -o remount,rw /' ; echo n=$?")
    assert "n=0" not in out["stdout"]


def test_nothing_is_written_outside_the_workspace(ctx: ToolContext) -> None:
    probes = [ROOT / ".attack-probe", Path("/etc/.attack-probe"), Path("/var/tmp/.attack-probe")]
    try:
        command = "; ".join(f"echo x > {p}" for p in probes) + "; echo in > inside.txt"
        _run(ctx, command)
        assert (ctx.workspace / "inside.txt").read_text() == "in\n"
        assert not any(p.exists() for p in probes)
    finally:
        for p in probes:
            p.unlink(missing_ok=True)


def test_the_recorders_environment_is_out_of_reach(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GCP_CREDS", SECRET)
    out = _run(ctx, "cat /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n'")
    assert "PATH=" in out["stdout"] and SECRET not in out["stdout"]
    assert f"/proc/{os.getpid()}" not in _run(ctx, "ls -d /proc/[0-9]*")["stdout"]


def test_roots_secrets_are_covered(ctx: ToolContext) -> None:
    out = _run(ctx, "ls -A /root | wc -l; cat /etc/shadow 2>/dev/null | wc -c")
    assert out["stdout"].split() == ["0", "0"]


@pytest.mark.skipif(seccomp.program() is None, reason="no seccomp table for this machine")
def test_unix_sockets_and_the_keyring_are_refused(ctx: ToolContext) -> None:
    table = seccomp_tables.table_for()
    assert table is not None
    keyctl = table.numbers["keyctl"]  # this machine's number for it
    code = (
        "import socket, ctypes\n"
        "try:\n    socket.socket(socket.AF_UNIX)\n    print('unix open')\n"
        "except PermissionError:\n    print('unix refused')\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        f"print('keyctl', libc.syscall({keyctl}, 0, 0, 0, 0, 0), ctypes.get_errno())\n"
        "a, b = socket.socketpair()\nprint('pair ok')\n"
    )
    (ctx.workspace / "probe.py").write_text(code)
    out = _run(ctx, "python3 probe.py")
    assert out["stdout"].strip().split("\n") == ["unix refused", "keyctl -1 1", "pair ok"], out


def test_limits_hold_inside(ctx: ToolContext) -> None:
    out = _run(ctx, "ulimit -f; ulimit -v; ulimit -c")
    assert out["stdout"].split() == [
        str(MAX_FILE_BYTES // 1024),
        str(MAX_MEMORY_BYTES // 1024),
        "0",
    ]


FORK_BOMB = (
    "import os, time\n"
    "n = 0\n"
    "try:\n"
    "    while n < 200:\n"
    "        if os.fork() == 0:\n"
    "            time.sleep(5)\n"
    "            os._exit(0)\n"
    "        n += 1\n"
    "except OSError:\n"
    "    pass\n"
    "print(n)\n"
)


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_fork_bomb_stops_at_the_process_limit(
    monkeypatch: pytest.MonkeyPatch, sandboxed: bool
) -> None:
    from tracer.agent import limits, pids_cgroup

    if os.geteuid() == 0 and pids_cgroup.hierarchy() is None:
        pytest.skip("root, and no pids cgroup can be made here: only the PID namespace bounds it")
    walls = find_sandbox() if sandboxed else None
    if sandboxed and walls is None:
        pytest.skip("bwrap cannot start a sandbox on this machine")
    monkeypatch.setattr(limits, "MAX_PROCESSES", 30)
    emptied: list[Path] = []
    real_empty = pids_cgroup.empty

    def empty(folder: Path) -> None:
        real_empty(folder)
        emptied.append(folder)

    monkeypatch.setattr(pids_cgroup, "empty", empty)
    # A session's own folders: as root without a sandbox, the command's uid can reach them.
    dirs = SessionDirs.create()
    try:
        (dirs.workspace / "bomb.py").write_text(FORK_BOMB)
        out = _run(ToolContext(workspace=dirs.workspace, sandbox=walls), "python3 bomb.py")
    finally:
        dirs.cleanup()
    assert int(out["stdout"]) < 30, out
    # The cgroup went with its processes (the children that came back to us included).
    assert all(not folder.exists() for folder in emptied)
