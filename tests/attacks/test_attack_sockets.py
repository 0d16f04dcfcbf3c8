"""Sockets out of the sandbox, and personality changes (issue 31, point 3).

The filter refused ``socket(AF_UNIX)`` but not ``socketpair(AF_UNIX, SOCK_DGRAM)``: an unbound
datagram socket then ``sendto`` any socket file on the host, and with the network on, any
abstract name of the host's network namespace. AF_NETLINK, AF_VSOCK and ``personality`` were
allowed. Each attack runs the real Bash tool in the real sandbox (skipped where bwrap cannot
start), against a socket the test holds open on the host; the host side then checks that
nothing arrived.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import seccomp
from tracer.agent.sandbox import Sandbox
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.record.workspace import SessionDirs

pytestmark = pytest.mark.skipif(seccomp.program() is None, reason="no filter for this machine")
SECRET = b"socket-secret-0123456789"


def _walls(allow_network: bool = False) -> Sandbox:
    found = find_sandbox(allow_network)
    if found is None or not found.filtered:
        pytest.skip("bwrap with the seccomp filter cannot start on this machine")
    return found


@pytest.fixture
def dirs() -> Iterator[SessionDirs]:
    made = SessionDirs.create()
    yield made
    made.cleanup()


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every uid may cross, outside the sandbox's private /tmp."""
    folder = Path(tempfile.mkdtemp(prefix="tracer-test-", dir="/var/tmp"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


def _run(dirs: SessionDirs, walls: Sandbox, command: str) -> dict[str, Any]:
    ctx = ToolContext(workspace=dirs.workspace, sandbox=walls)
    out = BashTool().call({"command": command, "timeout": 20_000}, ctx)
    assert out["interrupted"] is False, out
    return out


def _python(code: str) -> str:
    return f"python3 -c {shlex.quote(code)}; echo rc=$?"


def _nothing_arrived(sock: socket.socket) -> None:
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(1024)


# The attacker's two ways to a datagram socket: socket() and a socketpair's unbound half.
SEND_BY_SOCKET = (
    "import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); "
    's.sendto(b"{secret}", {address!r}); print("sent")'
)
SEND_BY_PAIR = (
    "import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); "
    'a.sendto(b"{secret}", {address!r}); print("sent")'
)


@pytest.mark.parametrize("mode", [0o600, 0o666])
@pytest.mark.parametrize("how", [SEND_BY_SOCKET, SEND_BY_PAIR], ids=["socket", "socketpair"])
def test_a_root_owned_datagram_socket_is_unreachable(
    dirs: SessionDirs, open_folder: Path, mode: int, how: str
) -> None:
    # 0600: root's alone (the uid drop stops it too); 0666: any user's, so only the filter does.
    path = open_folder / "host.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as host:
        host.bind(str(path))
        path.chmod(mode)
        code = how.format(secret=SECRET.decode(), address=str(path))
        out = _run(dirs, _walls(), _python(code))
        assert "sent" not in out["stdout"] and "rc=1" in out["stdout"], out
        assert "Operation not permitted" in out["stderr"], out
        _nothing_arrived(host)


@pytest.mark.parametrize("how", [SEND_BY_SOCKET, SEND_BY_PAIR], ids=["socket", "socketpair"])
def test_an_abstract_socket_is_unreachable_with_the_network_on(dirs: SessionDirs, how: str) -> None:
    # Abstract names live in the network namespace, which --allow-network shares with the host.
    name = f"\0tracer-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as host:
        host.bind(name)
        code = how.format(secret=SECRET.decode(), address=name)
        out = _run(dirs, _walls(allow_network=True), _python(code))
        assert "sent" not in out["stdout"] and "rc=1" in out["stdout"], out
        _nothing_arrived(host)


def test_an_abstract_stream_socket_cannot_be_connected_with_the_network_on(
    dirs: SessionDirs,
) -> None:
    name = f"\0tracer-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as host:
        host.bind(name)
        host.listen(1)
        code = (
            "import socket; s = socket.socket(socket.AF_UNIX); "
            f's.connect({name!r}); s.sendall(b"{SECRET.decode()}"); print("sent")'
        )
        out = _run(dirs, _walls(allow_network=True), _python(code))
        assert "sent" not in out["stdout"] and "rc=1" in out["stdout"], out
        host.setblocking(False)
        with pytest.raises(BlockingIOError):
            host.accept()


@pytest.mark.parametrize(("family", "number"), [("AF_NETLINK", 16), ("AF_VSOCK", 40)])
def test_netlink_and_vsock_are_refused(dirs: SessionDirs, family: str, number: int) -> None:
    code = f'import socket; socket.socket({number}, socket.SOCK_DGRAM); print("opened")'
    out = _run(dirs, _walls(allow_network=True), _python(code))
    assert "opened" not in out["stdout"] and "Operation not permitted" in out["stderr"], family


def test_personality_changes_are_refused(dirs: SessionDirs) -> None:
    # setarch -R: ADDR_NO_RANDOMIZE, address randomisation off for what it starts.
    out = _run(dirs, _walls(), "setarch $(uname -m) -R true; echo rc=$?")
    assert "rc=0" not in out["stdout"] and "Operation not permitted" in out["stderr"], out
    asked = _run(dirs, _walls(), "setarch $(uname -m) true; echo rc=$?")  # PER_LINUX: allowed
    assert "rc=0" in asked["stdout"], asked


def test_a_connected_stream_pair_still_works(dirs: SessionDirs) -> None:
    # asyncio's self-pipe is socketpair(AF_UNIX, SOCK_STREAM); libuv's child pipes too.
    code = (
        "import asyncio, socket; asyncio.run(asyncio.sleep(0)); "
        'a, b = socket.socketpair(); a.send(b"x"); print(b.recv(1).decode())'
    )
    out = _run(dirs, _walls(), _python(code))
    assert out["stdout"].split() == ["x", "rc=0"], out


def test_the_host_side_sees_a_real_send_when_there_is_no_filter(
    open_folder: Path,
) -> None:
    # The attack itself works outside the sandbox: the tests above would catch a regression.
    path = open_folder / "host.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as host:
        host.bind(str(path))
        code = SEND_BY_PAIR.format(secret=SECRET.decode(), address=str(path))
        done = subprocess.run(
            ["python3", "-c", code], capture_output=True, text=True, timeout=20, check=False
        )
        assert done.stdout.strip() == "sent", done.stderr
        assert host.recv(1024) == SECRET
    assert os.path.exists(path)
