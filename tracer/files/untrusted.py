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
  (the rest of tracer walks values recursively); ``NaN`` and ``Infinity`` are not JSON, and
  neither is a number that only parses as infinity (``1e400``): refused here, where ``validate``
  sees it, so the md and OTLP exports never meet one. Long integers are kept, as the stdlib
  reads them;
* **YAML**: see :mod:`tracer.files.yamlfile`, which reads through :func:`read_text` and bounds
aliases,
  depth and size as it composes.

**Speed.** An import is mostly JSON parsing, so :func:`loads` first tries `orjson
<https://github.com/ijl/orjson>`_ (when its wheel is installed; the stdlib otherwise) and keeps
its answer only where it is the answer ``json.loads`` gives and passes the same checks. orjson
already refuses what is refused here (NaN and Infinity, invalid UTF-8, lone surrogates, control
characters) and reads duplicate keys the same way (the last value wins, at the first key's
place). Where it *differs*, the line goes the stdlib way: an integer beyond 64 bits (orjson
makes it a float: a run of 19 digits in a short line, a float that large in a long line's value
sends the line on, see :func:`quick_loads`), ``1e400`` (orjson refuses it, the stdlib reads
infinity), a line nested deeper than :data:`MAX_DEPTH`. Any line orjson refuses is read
again by the stdlib, which also names the problem. So the value and every error are the same
with or without orjson (``tests/test_untrusted.py`` compares them).

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
from collections.abc import Iterator

from tracer.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name

try:  # a wheel of compiled code: the stdlib reads everything the same way where it is missing
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the platform
    _orjson = None

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

_TEXT_CHECKS: tuple[re.Pattern[str], re.Pattern[str]] | None = None


def _text_checks() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """:func:`vet`'s two expressions, compiled the first time a line is read the stdlib's way
    (with orjson an import may read none so: compiling them cost every import's start-up).

    A lone surrogate escape: a high half not followed by a low one, or a low half on its own;
    a valid pair (how JSON writers escape an emoji) does not match, so it costs no walk. And
    what a float out of range looks like in the text: a long run of digits, or a 3-digit
    exponent; only a line that matches is walked, so ordinary lines cost one regex scan."""
    global _TEXT_CHECKS
    if _TEXT_CHECKS is None:
        surrogate = re.compile(
            r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
            r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
        )
        _TEXT_CHECKS = surrogate, re.compile(r"\d{300}|[eE][+-]?\d{3}")
    return _TEXT_CHECKS


_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
    stat.S_IFSOCK: "a socket",
}


def open_regular(path: Name, what: str = "file") -> int:
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


def read_bytes(path: Name, what: str = "file", limit: int = MAX_FILE) -> bytes:
    """The whole of a regular file, refusing more than ``limit`` bytes (from its size first)."""
    return b"".join(_reads(path, what, limit, 1 << 20))  # a file of one read is not copied


def read_pieces(
    path: Name, what: str = "file", limit: int = MAX_FILE, piece: int = 1 << 16
) -> Iterator[bytes]:
    """The whole of a regular file as :func:`read_bytes` reads it, in pieces of about ``piece``
    bytes that each end just after a newline (the last one where the file ends), so that a
    reader of lines never holds the whole file, nor a copy of it, at once. A line longer than
    a piece comes whole, in one larger piece."""
    held: list[bytes] = []  # the start of a line that the last read cut off
    for chunk in _reads(path, what, limit, piece):
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            held.append(chunk)
            continue
        if held:  # joined with a view of the chunk: the piece is copied once, not twice
            yield b"".join((*held, memoryview(chunk)[:cut]))
        else:
            yield chunk if cut == len(chunk) else chunk[:cut]
        held = [chunk[cut:]] if cut < len(chunk) else []
    if held:
        yield b"".join(held)


def _reads(path: Name, what: str, limit: int, size: int) -> Iterator[bytes]:
    """A regular file's bytes, ``size`` at a time as the kernel gives them, refusing more than
    ``limit`` in all: by its size before reading, and again if it grows while it is read."""
    fd = open_regular(path, what)
    try:
        length = os.fstat(fd).st_size
        if length > limit:
            raise UserError(f"too large ({length:,} bytes; the limit is {limit:,})", path)
        total = 0
        while chunk := os.read(fd, size):
            total += len(chunk)
            if total > limit:  # it grew while we read
                raise UserError(f"too large (over {limit:,} bytes)", path)
            yield chunk
    except OSError as exc:
        raise UserError(_os_reason(exc), path) from None
    finally:
        os.close(fd)


def decode(raw: bytes, path: Name, line: int | None = None) -> str:
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


def read_text(path: Name, what: str = "file", limit: int = MAX_TEXT) -> str:
    """A whole text file, bounded and strictly decoded."""
    return decode(read_bytes(path, what, limit), path)


#: A run of 19 digits may be an integer orjson would read as a float (beyond 64 bits). Found by
#: turning every digit into "0" and looking for 19 of them: many times faster than a regex. The
#: same table turns "{" into "[", so the containers a line opens are one count, not two.
_MARKS = bytes.maketrans(b"123456789{", b"000000000[")
_LONG_DIGITS = b"0" * 19
SHORT_LINE = 2048
"""Bytes in a line whose text :func:`quick_loads` searches; a longer line's parsed value is
walked instead (see there)."""
_BEYOND_64_BITS = float(2**63)
"""orjson reads an integer beyond 64 bits as a float, and every such float is at least this
large (or at most its negative)."""
MISS = object()
"""What :func:`quick_loads` returns for a line it leaves to the careful reading."""


def split_lines(data: bytes) -> list[memoryview]:
    """The lines of a file (or of a piece of one that ends after a newline), each without its
    newline (a torn last one too).

    The lines are views: ``bytes.split`` would copy the whole file once more, and orjson reads
    a view as it reads bytes. Finding a line's end is a ``memchr``.
    """
    view = memoryview(data)
    lines: list[memoryview] = []
    find = data.find
    start, size = 0, len(data)
    while start < size:
        stop = find(b"\n", start)
        if stop < 0:
            stop = size  # a last line without its newline
        lines.append(view[start:stop])
        start = stop + 1
    return lines


def quick_loads(raw: bytes | memoryview) -> Any:
    """The value of an ordinary line, read by orjson, or :data:`MISS` when anything about it
    is unusual (then :func:`loads` reads it and says what is wrong). Same value as ``loads``.

    Two things orjson reads otherwise than the stdlib must be ruled out: an integer beyond 64
    bits (orjson makes it a float) and a value nested deeper than :data:`MAX_DEPTH` (orjson
    allows 1,024 levels). Searching a line's text costs in proportion to its bytes, walking its
    parsed value in proportion to its values, and a walk spends on one value about what a
    search spends on 50 bytes. A short line is mostly keys, punctuation and small values: its
    text is searched (:data:`_MARKS`) for a run of 19 digits and its brackets are counted, and
    only a line with more than :data:`MAX_DEPTH` of them is walked. A long line is mostly long
    strings (a tool's output, a file read): its value is walked (:func:`_unusual`) and its text
    never searched. On a real transcript, where a few long lines hold half the bytes, the
    checks cost about a quarter less than searching every line did.
    """
    if _orjson is None or len(raw) > MAX_LINE:
        return MISS
    walk = True
    if len(raw) <= SHORT_LINE:
        marks = bytes(raw).translate(_MARKS)  # a copy of a short view; bytes are not copied
        # find, not ``in``: ``in`` first asks whether its operand is an integer, and that
        # costs a formatted TypeError on every line.
        if marks.find(_LONG_DIGITS) >= 0:
            return MISS
        # A line that opens more containers than MAX_DEPTH may nest too deep: a long tool
        # output full of brackets, most often.
        walk = marks.count(b"[") > MAX_DEPTH
    try:
        value = _orjson.loads(raw)
    except _orjson.JSONDecodeError:
        return MISS
    if walk and _unusual(value):
        return MISS  # loads() reads it again and names the problem
    return value


def _unusual(value: Any) -> bool:
    """Whether a value orjson parsed nests deeper than :data:`MAX_DEPTH`, or holds a float
    orjson may have made of an integer beyond 64 bits (a float that large written as one is
    read again too, to the same value). Walked a level at a time, without recursion."""
    level = [value]
    depth = 1  # of a container in this level
    while level:
        below = []
        for item in level:
            kind = type(item)
            if kind is str:
                continue  # the most common value, and nothing to check in it
            if kind is dict or kind is list:
                if depth > MAX_DEPTH:
                    return True
                below.extend(item.values() if kind is dict else item)
            elif kind is float and not -_BEYOND_64_BITS < item < _BEYOND_64_BITS:
                return True
        level = below
        depth += 1
    return False


def no_constant(name: str) -> Any:
    """``parse_constant`` for JSON readers: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


def loads(raw: bytes | str, path: Name, line: int | None = None) -> Any:
    """One JSON value from one line, bounded in size and depth, with no lone surrogates."""
    if isinstance(raw, bytes):
        value = quick_loads(raw)
        if value is not MISS:
            return value
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


def vet(value: Any, text: str, path: Name, line: int | None = None) -> None:
    """Check a value just parsed from ``text``: nested at most :data:`MAX_DEPTH` deep, and no
    lone surrogate in any string.

    Both walks are skipped for ordinary lines, which keeps a whole import dominated by parsing:
    a value cannot nest deeper than it has brackets, and a lone surrogate can only come from an
    escape. The depth walk visits containers only, never strings.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(value, path, line)
    surrogate_escape, big_number = _TEXT_CHECKS or _text_checks()
    if "\\u" in text and surrogate_escape.search(text) is not None:
        check_value(value, path, line)
    if big_number.search(text) is not None:
        check_numbers(value, path, line)


def check_numbers(value: Any, path: Name, line: int | None = None) -> None:
    """Walk a parsed value (without recursion): every float finite."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise UserError("a number out of range (it reads as infinity)", path, line)


def _check_depth(value: Any, path: Name, line: int | None) -> None:
    if not isinstance(value, dict | list):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UserError(f"nested too deeply (over {MAX_DEPTH} levels)", path, line)
        subs = item.values() if isinstance(item, dict) else item
        stack.extend((sub, depth + 1) for sub in subs if isinstance(sub, dict | list))


def check_value(value: Any, path: Name, line: int | None = None) -> None:
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


def _encodable(text: str, path: Name, line: int | None) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        point = ord(text[exc.start])
        raise UserError(
            f"lone surrogate \\u{point:04x} in a string (not text any file can hold)", path, line
        ) from None
