"""The bridge out of Claude Code's network namespace (:mod:`tracer.claude_code.bridge`).

Both halves are run for real: the host's :class:`ApiLink` and the Node half as the sandbox runs
it (Node starts it with a descriptor of the socket pair, as bwrap passes it on), in front of a
small HTTP server on loopback. Then the real Claude Code in bwrap: the server answers it, and a
command it runs cannot reach another port on the host's loopback.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_helpers import real_claude
from run_helpers import Recording

from tracer.claude_code.bridge import HEADER, ApiLink, bridged

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

BIG = os.urandom(1_500_000)  # several frames each way


class _Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the client may reuse a connection

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[::-1])

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, int]]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[:2]  # type: ignore[misc]
    httpd.shutdown()
    httpd.server_close()


#: The client inside: POSTs the bytes of its first argument's file, ``count`` times at once,
#: and prints whether each answer came back reversed and whole.
CLIENT = r"""
const fs = require("fs");
const [file, port, count] = process.argv.slice(1);
const body = fs.readFileSync(file);
const want = Buffer.from(body).reverse();
const one = () => fetch(`http://127.0.0.1:${port}/`, { method: "POST", body })
  .then((r) => r.arrayBuffer()).then((b) => Buffer.from(b).equals(want));
Promise.all(Array.from({ length: Number(count) }, one))
  .then((ok) => console.log(JSON.stringify(ok)), (e) => console.log("error " + e.cause));
"""


@needs_node
@pytest.mark.parametrize("count", [1, 5])
def test_requests_cross_the_bridge_whole(
    server: tuple[str, int], tmp_path: Path, count: int
) -> None:
    body = tmp_path / "body"
    body.write_bytes(BIG)
    # The inside listens on another port here (bwrap would give it the server's own in a
    # namespace of its own): the bytes can only have come through the pair.
    inside_port = _free_port()
    with ApiLink(server) as link:
        client = [str(NODE), "-e", CLIENT, "--", str(body), str(inside_port), str(count)]
        done = subprocess.run(
            bridged(client, inside_port, link.fd),
            pass_fds=(link.fd,),
            capture_output=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True] * count


#: Whether the process holds a descriptor of the socket whose inode is its argument.
HOLDS = """
import os, sys
held = []
for name in os.listdir("/proc/self/fd"):
    try:
        held.append(os.readlink(f"/proc/self/fd/{name}"))
    except OSError:
        pass  # the listing's own descriptor, closed by now
print("held" if f"socket:[{sys.argv[1]}]" in held else "not")
"""


@needs_node
def test_the_command_behind_the_bridge_does_not_hold_the_pair(
    server: tuple[str, int],
) -> None:
    with ApiLink(server) as link:
        inode = os.fstat(link.fd).st_ino
        # A high number, as in a busy process: Node left such a descriptor open in the child
        # it started (fd 40 and 200 were, 5 and 14 were not), which the bridge must cover.
        high = os.dup2(link.fd, 200, inheritable=False)
        try:
            assert _run_holds(HOLDS, inode, high, bridge=False) == "held"  # the check sees it
            assert _run_holds(HOLDS, inode, high, bridge=True) == "not"
        finally:
            os.close(high)


def _run_holds(code: str, inode: int, fd: int, *, bridge: bool) -> str:
    argv = [sys.executable, "-c", code, str(inode)]
    done = subprocess.run(
        bridged(argv, _free_port(), fd) if bridge else argv,
        pass_fds=(fd,),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


@needs_node
@pytest.mark.parametrize("code", [0, 3])
def test_the_bridge_exits_as_its_command_does(server: tuple[str, int], code: int) -> None:
    with ApiLink(server) as link:
        done = subprocess.run(
            bridged([sys.executable, "-c", f"raise SystemExit({code})"], _free_port(), link.fd),
            pass_fds=(link.fd,),
            timeout=60,
            check=False,
        )
    assert done.returncode == code


def test_a_link_that_does_not_speak_frames_is_dropped(server: tuple[str, int]) -> None:
    """Garbage on the pair (a kind that is not one, an oversized frame) ends the reading: the
    host opens nothing for it, and closing the link still returns."""
    with ApiLink(server) as link:
        inside = socket.socket(fileno=os.dup(link.fd))
        inside.sendall(HEADER.pack(9, 1, 0) + HEADER.pack(0, 2, 0))
        inside.settimeout(10)
        assert inside.recv(1) == b""  # the host stopped reading and will answer nothing
        inside.close()
    assert link._conns == {}


@pytest.mark.slow
def test_claude_code_reaches_its_server_and_no_other_port(tmp_path: Path, monkeypatch: Any) -> None:
    """The real Claude Code in bwrap: its requests arrive (the session ends as scripted), and the
    command it runs cannot reach a port that listens on the host's loopback."""
    from tracer.agent.sandbox_choice import find_sandbox
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_scenario_claude_code

    claude = real_claude()
    monkeypatch.setenv("TRACER_SANDBOX", "bwrap")
    if find_sandbox() is None:
        pytest.skip("bwrap cannot start here")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0)
    port = listener.getsockname()[1]
    command = f"bash -c 'echo x > /dev/tcp/127.0.0.1/{port} && echo reached || echo walled'"
    scenario = tmp_path / "reach.yaml"
    scenario.write_text(
        "name: reach\nprompt: Reach the port.\npermissions: {allow: ['Bash']}\nresponses:\n"
        f"  - tool_use: [{{name: Bash, input: {{command: {json.dumps(command)}, "
        "description: reach}}]\n"
        "  - text: Done.\n",
        encoding="utf-8",
    )
    trace = tmp_path / "reach.trace.jsonl"
    record_scenario_claude_code(load_scenario(scenario), trace, claude=claude)
    (result,) = Recording(trace).results()
    assert "walled" in str(result["content"]) and "reached" not in str(result["content"])
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing came in
    listener.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
