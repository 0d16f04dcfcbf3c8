"""The careful reading of what :mod:`tracer.files.untrusted` lets in: strict text, JSON by the
stdlib, and the walks that prove a parsed value sound.

:func:`tracer.files.untrusted.loads` first asks orjson (its quick path), and every line of an
ordinary transcript is read so; a line orjson refuses or that may be unusual (an integer beyond
64 bits, deep nesting, bad UTF-8, a blank or torn line) comes here, where the standard library
reads it and the problem gets its name:

* **text**: :func:`decode` is strict UTF-8 with the column of the first bad byte, and a NUL is
  refused; :func:`tracer.files.untrusted.read_text` decodes a whole file with it;
* **JSON**: :func:`parse` is ``json.loads`` with every failure turned into one
  ``file:line: what``. ``NaN`` and ``Infinity`` are refused (:func:`no_constant`), so is a
  number that only parses as infinity (``1e400``), a value nested deeper than
  :data:`~tracer.files.MAX_DEPTH` and a string holding a lone surrogate (``"\\ud800"``: no
  UTF-8 file can hold it, so writing it back out would fail later, far from the cause);
* **walks**: :func:`vet` looks at a line's text and walks its value only where the text shows
  it may hold one of those; :func:`check_value` and :func:`check_numbers` walk a value
  whatever its text, for the YAML reader (:mod:`tracer.files.yamlfile`), whose aliases and
  escapes make the same values.

Loaded the first time it is needed (:mod:`tracer.files.untrusted` imports it where a line leaves
the quick path), so an import of a real transcript, which meets no such line, does not pay for
loading it. Claude Code has no counterpart: its transcript readers (``utils/sessionStorage.ts``)
skip a line ``JSON.parse`` refuses.
"""

from __future__ import annotations

import json
import math
import re

from tracer.errors import UserError
from tracer.files import MAX_DEPTH

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name

_TEXT_CHECKS: tuple[re.Pattern[str], re.Pattern[str]] | None = None


def _text_checks() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """:func:`vet`'s two expressions, compiled the first time a line is read the stdlib's way
    (a YAML file or a text file loads this module and reads no line so: compiling them would
    cost each of those a start-up it does not need).

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


def no_constant(name: str) -> Any:
    """``parse_constant`` for JSON readers: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


#: The C scanner with NaN and Infinity refused, built once, for a reader that parses a line's
#: text itself and vets it (``--follow``'s lines: :func:`tracer.importers.jsonl.parse_lines`).
#: ``json.loads`` would also match whitespace around the object and check that nothing follows.
raw_decode = json.JSONDecoder(parse_constant=no_constant).raw_decode


def parse(text: str, path: Name, line: int | None = None) -> Any:
    """One JSON value from one line of text (bounded in size by the caller), nested at most
    :data:`~tracer.files.MAX_DEPTH` deep, with no lone surrogates and no infinite number."""
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
