"""API failures: how long does ``tracer record --prompt`` take to give up on a bad server?

Two tiny servers on 127.0.0.1 play the worst cases of issue 13: one reads the request and never
answers; the other answers 200 and then sends nothing but ``ping`` events. ``tracer record
--prompt`` runs against each for real (its own process, the real SDK and HTTP transport, a dummy
key that never leaves the machine), with ``--timeout T``. The bound is the attempt budget times
the timeout, plus the SDK's back-off between its own retries (at most 0.5 s + 1 s):
``3 × T + 1.5 s``. Before issue 13 the silent server held a session for about 30 minutes.

Run: ``python bench/api_failures.py [--timeout 1]``; the last line printed is the silent
server's time in seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = {
    "type": "message_start",
    "message": {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "bench",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            while len(body) < int(line.split(b":", 1)[1]):
                body += conn.recv(65536)


def silent(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    stop.wait()


def pings_only(conn: socket.socket, stop: threading.Event) -> None:
    _read_request(conn)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
    conn.sendall(head + f"event: message_start\ndata: {json.dumps(START)}\n\n".encode())
    try:
        while not stop.wait(0.1):
            conn.sendall(b'event: ping\ndata: {"type": "ping"}\n\n')
    except OSError:
        pass


def serve(handler: Callable[[socket.socket, threading.Event], None], stop: threading.Event) -> int:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=handler, args=(conn, stop), daemon=True).start()
        listener.close()

    threading.Thread(target=loop, daemon=True).start()
    return int(listener.getsockname()[1])


def record_against(port: int, timeout: float, folder: Path) -> tuple[float, float, int, str]:
    """For one ``tracer record --prompt``: wall time, time from the first attempt to the end of
    the session (from the trace's own clock), HTTP attempts, and the session's error."""
    out = folder / f"run-{port}.trace.jsonl"
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "bench-dummy-key",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "NO_PROXY": "127.0.0.1",
    }
    command = [sys.executable, "-m", "tracer", "record", "--prompt", "hello"]
    command += ["--timeout", str(timeout), "-o", str(out)]
    began = time.monotonic()
    subprocess.run(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True)
    took = time.monotonic() - began
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    starts = [e["t"] for e in events if e["kind"] == "http_attempt_start"]
    waited = events[-1]["t"] - starts[0]
    return took, waited, len(starts), events[-1].get("error", "(no error)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=1.0)
    args = parser.parse_args()
    bound = 3 * args.timeout + 1.5
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for name, handler in (("pings only", pings_only), ("silent", silent)):
            port = serve(handler, stop)
            took, waited, attempts, error = record_against(port, args.timeout, Path(tmp))
            results[name] = waited
            print(
                f"{name}: gave up {waited:.2f}s after the first attempt ({took:.2f}s for the "
                f"whole command), {attempts} attempts: {error}"
            )
    stop.set()
    verdict = "ok" if max(results.values()) <= bound else "OVER BOUND"
    print(f"bound: 3 × {args.timeout:g}s + 1.5s back-off = {bound:.1f}s ({verdict})")
    print(f"silent server: the session gave up {results['silent']:.2f}s after its first attempt")


if __name__ == "__main__":
    main()
