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
  aliases, depth and size as it composes.

Files and the quick reading of JSON are here; the careful reading (strict UTF-8, the stdlib's
parser, the walks that name what is wrong) is :mod:`tracer.files.careful`, loaded the first time
a line needs it. The bounds (:data:`MAX_LINE` and the others) are the package's.

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
with or without orjson (``tests/test_untrusted_orjson.py`` compares them).

Claude Code has no single counterpart: its readers of ``~/.claude/projects`` transcripts
(``utils/sessionStorage.ts``) skip lines that fail ``JSON.parse``. Here the boundary also checks
shapes, because the readers behind it are written for well-formed data.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence

from tracer.errors import UserError

# The bounds are the package's, kept here as they always were and in the careful reading
# (tracer.files.careful), which this module loads and which therefore cannot import it.
from tracer.files import MAX_DEPTH, MAX_FILE, MAX_LINE, MAX_TEXT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name

try:  # a wheel of compiled code: the stdlib reads everything the same way where it is missing
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the platform
    _orjson = None  # type: ignore[assignment]  # no wheel: the checks below ask

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


def read_text(path: Name, what: str = "file", limit: int = MAX_TEXT) -> str:
    """A whole text file, bounded and strictly decoded (:func:`tracer.files.careful.decode`)."""
    data = read_bytes(path, what, limit)
    from tracer.files.careful import decode  # a text file: no import of a transcript reads one

    return decode(data, path)


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
UTF8_BOM = b"\xef\xbb\xbf"
"""A byte-order mark, which some editors write at the start of a UTF-8 file: read past, never
taken for the start of the first line's JSON."""
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
    never searched; a long line of many small values (a long array of numbers) is walked
    mostly in C. On a real transcript, where a few long lines hold half the bytes, the
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
        # output full of brackets, most often. They are counted by deleting them: a deletion
        # finds them with memchr, where count() reads the line a byte at a time (and a line
        # that opens none is not copied).
        walk = len(marks) - len(marks.replace(b"[", b"")) > MAX_DEPTH
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
    read again too, to the same value). Walked a level at a time, without recursion; a long
    level of plain values is first cut down in C (:func:`_worth_a_look`)."""
    level: Sequence[Any] = [value]
    depth = 1  # of a container in this level
    while level:
        # A long level that opens with a container is most often all containers (a list of
        # objects): each must be opened here anyway, and a pass in C would be spent for nothing.
        if len(level) > _MANY and type(level[0]) not in _CONTAINERS:
            level = _worth_a_look(level)
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


_MANY = 100
"""Values in a level beyond which the walk first looks at their types in C (real ones are few)."""
_CONTAINERS = frozenset((dict, list))


def _worth_a_look(values: Sequence[Any]) -> Sequence[Any]:
    """Of many values, those the walk must look at one by one: all of them if one is a
    container; else of the floats only the smallest and the largest (if one float is too
    large, one of these two is); else none, as strings, integers, booleans and nulls hold
    nothing to check.

    A line of many small values (a tool's output that is a long array of numbers, fuzzed
    input) is checked this way in a pass or two in C, for two or three times what orjson
    spent making them, where looking at each value in Python costs up to eight times as much.
    """
    kinds = set(map(type, values))
    if not kinds.isdisjoint(_CONTAINERS):
        return values
    if float not in kinds:
        return ()
    floats = values if len(kinds) == 1 else [x for x in values if type(x) is float]
    return (min(floats), max(floats))


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
    # Not an ordinary line: read the careful way (the stdlib, strict UTF-8, the checks), by a
    # module loaded the first time one comes (an import of a real transcript meets none).
    from tracer.files.careful import decode, parse

    return parse(decode(raw, path, line) if isinstance(raw, bytes) else raw, path, line)
