"""Grep's regular expression, run in a child process with a deadline.

A user's pattern runs on Python's backtracking engine, where ``^(a+)+$`` over a line of ``a``\\ s
followed by ``b`` takes exponential time, and a thread stuck in ``re`` cannot be stopped. So the
search runs in a child Python (``-S``: no site, a fast start) that the parent kills at
:data:`GREP_SECONDS`; the parent hands it the options and the contents (already opened safely,
size-capped and in the order they are to be listed) on its stdin, and reads back the lines
ripgrep would have printed for the chosen mode:

- ``files_with_matches`` (``rg -l``): one name a line;
- ``count`` (``rg -c``): ``name:N``, the number of matching lines;
- ``content``: ``name:12:text`` for a matching line, ``name-11-text`` for a context line (``-n``
  off drops the number), ``--`` between groups that do not touch when context was asked for, and
  a line over 500 characters replaced as ``--max-columns 500`` does.

Lines are matched one at a time (``^`` and ``$`` at each line), or, with ``multiline``, the whole
text at once with ``.`` matching a newline (``rg -U --multiline-dotall``); files with a NUL byte or
that are not UTF-8 are skipped, as ripgrep skips binary files. The child stops after ``stop``
lines, so a broad pattern with a small ``head_limit`` costs no more than it shows.

Claude Code's Grep (``src/tools/GrepTool/GrepTool.ts``) runs ripgrep, whose engine does not
backtrack; this is the same bound, kept with the standard library.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from typing import Any

from tracer.agent.limits import limited

GREP_SECONDS = 10.0

_CHILD = r"""
import bisect, json, re, struct, sys
data = sys.stdin.buffer
def chunk():
    head = data.read(8)
    return None if len(head) < 8 else data.read(struct.unpack("<Q", head)[0])
o = json.loads(chunk())
flags = (re.IGNORECASE if o["i"] else 0) | (re.MULTILINE | re.DOTALL if o["U"] else 0)
regex = re.compile(o["pattern"], flags)
mode, before, after, stop = o["mode"], o["B"], o["A"], o["stop"]
written, last = 0, None  # last: (file, line) of the last line printed in content mode
def emit(line):
    global written
    sys.stdout.write(line + "\n")
    written += 1
    if stop and written >= stop:
        sys.stdout.flush()
        sys.exit(0)
def hit_lines(text, lines):
    if not o["U"]:
        return [k for k, line in enumerate(lines) if regex.search(line)]
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    hit = set()
    for m in regex.finditer(text):
        first = bisect.bisect_right(starts, m.start()) - 1
        end = bisect.bisect_right(starts, max(m.end() - 1, m.start())) - 1
        hit.update(range(first, min(end, len(lines) - 1) + 1))
    return sorted(hit)
def shown(name, k, line, sep):
    if len(line.encode("utf-8")) > 500:
        if sep == ":":
            line = f"[Omitted long line with {len(regex.findall(line))} matches]"
        else:
            line = "[Omitted long context line]"
    number = f"{k + 1}{sep}" if o["n"] else ""
    return f"{name}{sep}{number}{line}".rstrip("\r")
for index, name in enumerate(o["names"]):
    raw = chunk()
    if raw is None:
        break
    if b"\0" in raw:
        continue
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        continue
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    hits = hit_lines(text, lines)
    if not hits:
        continue
    if mode == "files_with_matches":
        emit(name)
    elif mode == "count":
        emit(f"{name}:{len(hits)}")
    else:
        hit = set(hits)
        wanted = set()
        for k in hits:
            wanted.update(range(max(0, k - before), min(len(lines), k + after + 1)))
        for k in sorted(wanted):
            if (before or after) and last is not None and last != (index, k - 1):
                emit("--")
            emit(shown(name, k, lines[k], ":" if k in hit else "-"))
            last = (index, k)
"""


class GrepTimeout(Exception):
    """The search did not finish in time."""


def search(
    options: dict[str, Any],
    names: list[str],
    contents: list[bytes],
    seconds: float | None = None,
) -> list[str]:
    """The lines ripgrep would print for ``options`` (``pattern``, ``mode``, ``i``, ``U``, ``n``,
    ``B``, ``A``, ``stop``) over ``contents`` named ``names``, within ``seconds`` (default
    :data:`GREP_SECONDS`) or :class:`GrepTimeout`."""
    header = json.dumps({**options, "names": names}).encode("utf-8")
    feed = [struct.pack("<Q", len(header)), header]
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
    if proc.returncode != 0:
        raise RuntimeError(
            f"the search process failed: {json.dumps(out[-200:].decode('utf-8', 'replace'))}"
        )
    # As 2.1.88's ripGrep reads rg's stdout: split, "\r" dropped, empty lines dropped.
    return [line for line in out.decode("utf-8", "replace").split("\n") if line]
