"""The one way out of Claude Code's network namespace: a socket pair to the loopback server.

``claude`` talks to the Messages API over HTTP at ``ANTHROPIC_BASE_URL``, and the commands it
runs inherit its walls. Had it shared tracer's network namespace so as to reach the loopback
server, those commands (a ``curl`` the model asked for) could reach every address the host can.
So ``claude`` gets a network namespace of its own, as a Bash command does, holding nothing but a
loopback device, and the server is reached through one socket pair made before the sandbox
starts. The seccomp filter refuses every new Unix socket inside (:mod:`tracer.agent.seccomp`),
so the pair is the only one there is, and it leads to one place:

* inside, a few lines of Node (the runtime ``claude`` runs on: nothing new enters the sandbox)
  listen on the loopback port in the new namespace and carry each connection over the pair,
  in frames (:data:`NODE_BRIDGE`), then start ``claude`` (:func:`bridged`);
* outside, :class:`ApiLink` reads the frames and opens, for each connection, one to the
  loopback server, passing the bytes on both ways.

A frame is a kind (:data:`OPEN`, :data:`DATA`, :data:`CLOSE`), a connection number and a length,
then that many bytes. ``ANTHROPIC_BASE_URL`` is the same URL on both sides; a command inside can
reach the API server as ``claude`` does, and nothing else.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

OPEN, DATA, CLOSE = 0, 1, 2
HEADER = struct.Struct(">BII")  # kind, connection, length
#: The most one frame carries; a longer one means the other side is not the bridge.
CHUNK = 64 * 1024
#: Connections at once: ``claude`` opens a handful; more are closed at once, never queued.
MAX_CONNECTIONS = 32

#: The sandbox's half, run by Node. Arguments: the pair's descriptor, the loopback port, then
#: ``claude``'s own command line, started with the pair's descriptor covered, so ``claude`` and
#: the commands it runs never hold the pair.
NODE_BRIDGE = r"""
const net = require("net"), os = require("os"), { spawn } = require("child_process");
const [fd, port, ...command] = process.argv.slice(1);
const link = new net.Socket({ fd: Number(fd), readable: true, writable: true });
const conns = new Map();
let next = 0, pending = Buffer.alloc(0);
const send = (kind, id, body = Buffer.alloc(0)) => {
  const head = Buffer.alloc(9);
  head.writeUInt8(kind, 0); head.writeUInt32BE(id, 1); head.writeUInt32BE(body.length, 5);
  link.write(Buffer.concat([head, body]));
};
link.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 9) {
    const kind = pending.readUInt8(0), id = pending.readUInt32BE(1), n = pending.readUInt32BE(5);
    if (pending.length < 9 + n) break;
    const body = pending.subarray(9, 9 + n);
    pending = pending.subarray(9 + n);
    const near = conns.get(id);
    if (near && kind === 1) near.write(body);
    else if (near && kind === 2) near.end();
  }
});
link.on("error", () => {});
link.on("close", () => { for (const near of conns.values()) near.destroy(); });
const server = net.createServer({ allowHalfOpen: true }, (near) => {
  const id = ++next;
  let ended = false;
  const end = () => { if (!ended) { ended = true; send(2, id); } };
  conns.set(id, near);
  send(0, id);
  near.on("data", (d) => {
    for (let at = 0; at < d.length; at += 65536) send(1, id, d.subarray(at, at + 65536));
  });
  near.on("end", end);
  near.on("error", () => near.destroy());
  near.on("close", () => { end(); conns.delete(id); });
});
server.on("error", (e) => { console.error("tracer: bridge: " + e.message); process.exit(70); });
server.listen(Number(port), "127.0.0.1", () => {
  // The child's copy of the pair's descriptor is replaced by one of standard input (null):
  // a descriptor Node inherited is not closed on exec, and claude must not hold the pair.
  const stdio = Array.from({ length: Number(fd) + 1 }, (_, i) => (i < 3 ? "inherit" : "ignore"));
  stdio[Number(fd)] = 0;
  const child = spawn(command[0], command.slice(1), { stdio });
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => { console.error("tracer: bridge: " + e.message); process.exit(127); });
  child.on("exit", (code, signal) => {
    process.exit(code ?? 128 + (os.constants.signals[signal] || 0));
  });
});
"""


def bridged(argv: list[str], port: int, fd: int) -> list[str]:
    """``argv`` started by the sandbox's half of the bridge, listening on ``port``, framing
    over the descriptor ``fd``."""
    return ["/usr/bin/env", "node", "-e", NODE_BRIDGE, "--", str(fd), str(port), *argv]


class ApiLink:
    """The host's half: the socket pair, and for each connection the sandbox opens, one to
    ``target`` (the loopback server), until the session ends."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._ours, self._theirs = socket.socketpair()
        self._sending = threading.Lock()
        self._lock = threading.Lock()
        self._conns: dict[int, socket.socket] = {}
        self._reader = threading.Thread(target=self._read, name="tracer-api-link", daemon=True)

    @property
    def fd(self) -> int:
        """The descriptor the sandbox inherits (pass it to the process that runs it)."""
        return self._theirs.fileno()

    def __enter__(self) -> ApiLink:
        self._reader.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._theirs.close()
        with contextlib.suppress(OSError):
            self._ours.shutdown(socket.SHUT_RDWR)  # wakes the reader
        self._reader.join(timeout=5)
        self._ours.close()
        with self._lock:
            for conn in self._conns.values():
                conn.close()
            self._conns.clear()

    def _read(self) -> None:
        while True:
            head = self._exactly(HEADER.size)
            if head is None:
                return
            kind, number, length = HEADER.unpack(head)
            if kind not in (OPEN, DATA, CLOSE) or length > CHUNK:
                # Not the bridge speaking: hang up on it.
                with contextlib.suppress(OSError):
                    self._ours.shutdown(socket.SHUT_RDWR)
                return
            body = self._exactly(length) if length else b""
            if body is None:
                return
            if kind == OPEN:
                self._open(number)
            with self._lock:
                conn = self._conns.get(number)
            if conn is None or kind == OPEN:
                continue
            try:
                if kind == DATA:
                    conn.sendall(body)
                else:  # the client is done sending; the server may still answer
                    conn.shutdown(socket.SHUT_WR)
            except OSError:
                self._send(CLOSE, number)

    def _open(self, number: int) -> None:
        with self._lock:
            full = len(self._conns) >= MAX_CONNECTIONS or number in self._conns
        try:
            if full:
                raise OSError("too many connections")
            conn = socket.create_connection(self.target, timeout=5)
            conn.settimeout(None)
        except OSError:
            self._send(CLOSE, number)
            return
        with self._lock:
            self._conns[number] = conn
        threading.Thread(target=self._pump, args=(number, conn), daemon=True).start()

    def _pump(self, number: int, conn: socket.socket) -> None:
        """The server's answer, framed, until it closes; then the connection is done."""
        try:
            while chunk := conn.recv(CHUNK):
                self._send(DATA, number, chunk)
        except OSError:
            pass
        self._send(CLOSE, number)
        with self._lock:
            self._conns.pop(number, None)
        conn.close()

    def _send(self, kind: int, number: int, body: bytes = b"") -> None:
        with self._sending, contextlib.suppress(OSError):
            self._ours.sendall(HEADER.pack(kind, number, len(body)) + body)

    def _exactly(self, size: int) -> bytes | None:
        parts, left = [], size
        while left:
            try:
                chunk = self._ours.recv(left)
            except OSError:
                return None
            if not chunk:
                return None
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)
