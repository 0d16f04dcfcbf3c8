"""Grep's regular expression, run in a child process with a deadline.

A user's pattern runs on Python's backtracking engine, where ``^(a+)+$`` over a line of ``a``\\ s
followed by ``b`` takes exponential time, and a thread stuck in ``re`` cannot be stopped. So the
search runs in a child Python (``-S``: no site, a fast start) that the parent kills at
:data:`GREP_SECONDS`; the parent hands it the contents (already opened safely and size-capped)
on its stdin, and reads back the numbers of the files that matched.

Claude Code's Grep runs ripgrep, whose engine does not backtrack; this is the same bound, kept
with the standard library.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys

from tracer.agent.limits import limited

GREP_SECONDS = 10.0

_CHILD = r"""
import re, struct, sys
data = sys.stdin.buffer
size = struct.unpack("<Q", data.read(8))[0]
regex = re.compile(data.read(size).decode("utf-8"))
index = 0
while True:
    head = data.read(8)
    if len(head) < 8:
        break
    size = struct.unpack("<Q", head)[0]
    chunk = data.read(size)
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and regex.search(text):
        sys.stdout.write(f"{index}\n")
        sys.stdout.flush()
    index += 1
"""


class GrepTimeout(Exception):
    """The search did not finish in time."""


def matching(pattern: str, contents: list[bytes], seconds: float | None = None) -> list[int]:
    """The indices of ``contents`` in which ``pattern`` is found (UTF-8 text only), within
    ``seconds`` (default :data:`GREP_SECONDS`) or :class:`GrepTimeout`."""
    body = pattern.encode("utf-8")
    feed = [struct.pack("<Q", len(body)), body]
    for content in contents:
        feed += [struct.pack("<Q", len(content)), content]
    proc = subprocess.Popen(
        limited([sys.executable, "-S", "-c", _CHILD]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PYTHONIOENCODING": "utf-8"},
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(b"".join(feed), timeout=seconds or GREP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise GrepTimeout from None
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return [int(line) for line in out.split()] if proc.returncode == 0 else _failed(out)


def _failed(out: bytes) -> list[int]:
    raise RuntimeError(
        f"the search process failed: {json.dumps(out[-200:].decode('utf-8', 'replace'))}"
    )
