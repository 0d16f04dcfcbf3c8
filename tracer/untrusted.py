"""The one door untrusted bytes come in by: files, lines, JSON and YAML, checked and bounded.

Everything tracer reads that someone else wrote (a trace, a scenario, a Claude Code transcript,
an API log) goes through here before any other module looks at it. The rule is simple: what comes
out is well formed and of reasonable size, and anything else becomes a :class:`UserError` saying
``file:line: what``, never a traceback, a hang or a runaway allocation.

* **files**: only regular files are read. A FIFO would block forever, ``/dev/zero`` and
  ``/dev/urandom`` never end, a directory is not data; they are refused from ``fstat`` alone,
  after an ``O_NONBLOCK`` open, so even a FIFO with no writer cannot stall the open itself;
* **text**: UTF-8 only, strict. An invalid byte, a NUL, or a lone surrogate (JSON lets you write
  ``"\\ud800"``; no UTF-8 file can hold it, so writing it back out or printing it would fail
  later, far from the cause) is named with its column;
* **JSON**: one line is at most :data:`MAX_LINE` bytes and nests at most :data:`MAX_DEPTH` deep
  (the rest of tracer walks values recursively); ``NaN`` and ``Infinity`` are not JSON, and a
  number must be one the exports can write: ``1e400`` parses as infinity and an integer past
  64 bits fits no OTLP attribute, so both are refused here, where ``validate`` would see them;
* **YAML**: see :mod:`tracer.yamlfile`, which reads through :func:`read_text` and bounds aliases,
  depth and size as it composes.

Claude Code has no single counterpart: its readers of ``~/.claude/projects`` transcripts
(``utils/sessionStorage.ts``) skip lines that fail ``JSON.parse``. Here the boundary also checks
shapes, because the readers behind it are written for well-formed data.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from tracer.errors import UserError

MAX_LINE = 64 * 1024 * 1024
"""Bytes in one JSON line. The largest real line is a request or a persisted tool output (a
few MB); a line bigger than this is damage, and decoding it would cost seconds and gigabytes."""
MAX_DEPTH = 64
"""Nesting of arrays and objects in one JSON value. Real traces nest about 8 deep."""
MAX_FILE = 1024 * 1024 * 1024
"""Bytes in a file read whole (a transcript or an API log being imported). The longest real
Claude Code sessions are a few hundred MB; a bigger file would cost gigabytes to hold and split."""
MAX_TEXT = 4 * 1024 * 1024
"""Bytes in a hand-written text file (a scenario); big files of that kind are not hand-written."""

#: A lone surrogate escape: a high half not followed by a low one, or a low half on its own.
#: A valid pair (how JSON writers escape an emoji) does not match, so it costs no walk.
_SURROGATE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
#: What an out-of-range number looks like in the text: a long run of digits, or a 3-digit
#: exponent. Only a line that matches is walked, so ordinary lines cost one regex scan.
_BIG_NUMBER = re.compile(r"\d{19}|[eE][+-]?\d{3}")
MAX_INT = 2**63 - 1
"""The largest integer a trace may hold (OTLP's int64)."""
_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
    stat.S_IFSOCK: "a socket",
}


def open_regular(path: str | Path, what: str = "file") -> int:
    """Open ``path`` for reading and return the descriptor; refuse anything but a regular file.

    ``what`` names what was expected (``a trace``, ``a scenario``) in the error.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(_os_reason(exc), path) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise UserError(_os_reason(exc), path) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise UserError(f"is {kind}, not {what}: refused", path)
    return fd


def _os_reason(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOTDIR:
        return "no such file (a part of the path is not a directory)"
    return f"cannot read: {exc.strerror or exc}"


def read_bytes(path: str | Path, what: str = "file", limit: int = MAX_FILE) -> bytes:
    """The whole of a regular file, refusing more than ``limit`` bytes (from its size first)."""
    fd = open_regular(path, what)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise UserError(f"too large ({size:,} bytes; the limit is {limit:,})", path)
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read
                raise UserError(f"too large (over {limit:,} bytes)", path)
        return b"".join(chunks)
    except OSError as exc:
        raise UserError(_os_reason(exc), path) from None
    finally:
        os.close(fd)


def decode(raw: bytes, path: str | Path, line: int | None = None) -> str:
    """Strict UTF-8, with the column of the first bad byte; NUL is refused too."""
    nul = raw.find(b"\0")
    if nul >= 0:
        raise UserError(f"NUL byte at column {_column(raw, nul)}", path, _line(raw, nul, line))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        where = _column(raw, exc.start)
        raise UserError(
            f"not valid UTF-8 (byte 0x{bad:02x} at column {where})",
            path,
            _line(raw, exc.start, line),
        ) from None


def _column(raw: bytes, offset: int) -> int:
    return offset - (raw.rfind(b"\n", 0, offset) + 1) + 1


def _line(raw: bytes, offset: int, line: int | None) -> int:
    """The line of ``offset``: counted in ``raw`` when it is a whole file (``line`` unknown)."""
    return line if line is not None else raw.count(b"\n", 0, offset) + 1


def read_text(path: str | Path, what: str = "file", limit: int = MAX_TEXT) -> str:
    """A whole text file, bounded and strictly decoded."""
    return decode(read_bytes(path, what, limit), path)


def no_constant(name: str) -> Any:
    """``parse_constant`` for JSON readers: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


def loads(raw: bytes | str, path: str | Path, line: int | None = None) -> Any:
    """One JSON value from one line, bounded in size and depth, with no lone surrogates."""
    if len(raw) > MAX_LINE:
        raise UserError(
            f"line too long ({len(raw):,} bytes; the limit is {MAX_LINE:,})", path, line
        )
    text = decode(raw, path, line) if isinstance(raw, bytes) else raw
    try:
        value = json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"not valid JSON ({exc.msg}, column {exc.colno})", path, line) from None
    except RecursionError:
        raise UserError(f"nested too deeply (over {MAX_DEPTH} levels)", path, line) from None
    except ValueError as exc:  # NaN, or an integer too long to convert
        raise UserError(f"not valid JSON ({exc})", path, line) from None
    vet(value, text, path, line)
    return value


def vet(value: Any, text: str, path: str | Path, line: int | None = None) -> None:
    """Check a value just parsed from ``text``: nested at most :data:`MAX_DEPTH` deep, and no
    lone surrogate in any string.

    Both walks are skipped for ordinary lines, which keeps a whole import dominated by parsing:
    a value cannot nest deeper than it has brackets, and a lone surrogate can only come from an
    escape. The depth walk visits containers only, never strings.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(value, path, line)
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None:
        check_value(value, path, line)
    if _BIG_NUMBER.search(text) is not None:
        check_numbers(value, path, line)


def check_numbers(value: Any, path: str | Path, line: int | None = None) -> None:
    """Walk a parsed value (without recursion): every float finite, every integer in 64 bits."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise UserError("a number out of range (it reads as infinity)", path, line)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_INT:
            raise UserError(f"an integer out of range (over {MAX_INT:,})", path, line)


def _check_depth(value: Any, path: str | Path, line: int | None) -> None:
    if not isinstance(value, dict | list):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UserError(f"nested too deeply (over {MAX_DEPTH} levels)", path, line)
        subs = item.values() if isinstance(item, dict) else item
        stack.extend((sub, depth + 1) for sub in subs if isinstance(sub, dict | list))


def check_value(value: Any, path: str | Path, line: int | None = None) -> None:
    """Walk a parsed value (without recursion): depth bounded, every string encodable."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _encodable(item, path, line)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise UserError(f"nested too deeply (over {MAX_DEPTH} levels)", path, line)
        if isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(key, str):  # a YAML key may be a number
                    _encodable(key, path, line)
                stack.append((sub, depth + 1))
        else:
            stack.extend((sub, depth + 1) for sub in item)


def _encodable(text: str, path: str | Path, line: int | None) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        point = ord(text[exc.start])
        raise UserError(
            f"lone surrogate \\u{point:04x} in a string (not text any file can hold)", path, line
        ) from None
