"""Compact JSON, the way the ``anthropic`` SDK and our trace files write it, built once.

Every trace line and every rebuilt request body is compact JSON with non-ASCII kept as is
(``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``). An import writes thousands
of such values, and ``JSONEncoder.encode`` does some set-up on *every* call: it defines a float
formatter and builds a fresh C encoder object before encoding anything. On a long session that
set-up alone was a sixth of all the JSON writing. :func:`compact_encoder` builds the C encoder
once and reuses it; the bytes are the same (a test compares them with ``json.dumps`` on awkward
values), and where the C accelerator is missing it falls back to ``JSONEncoder.encode``.

No cycle check either: what we encode is parsed JSON or plain data we built, never cyclic, and
the check keeps an ``id()`` of every list and dict it enters.

Two promises, for two kinds of output:

* **A request body** (:func:`bytes_encoder`) must be byte for byte what the SDK sends, since its
  size and sha256 are what a trace says was sent. orjson writes it where the two agree, and they
  disagree only on floats with a negative exponent (orjson writes ``0.00001`` and ``1e-6``, the
  stdlib ``1e-05`` and ``1e-06``), on NaN and infinity (orjson writes ``null``), and on what JSON
  cannot hold (integers beyond 64 bits, non-string keys, lone surrogates: orjson refuses them).
  An output that shows any sign of those (``0.0000``, a one-digit negative exponent, ``null``)
  or that orjson refuses is encoded again by the stdlib.
* **A trace line** (:func:`line_encoder`, :func:`line_bytes_encoder`) must read back as the same
  values, which orjson guarantees on its own: a float is written as the shortest text that reads
  back as that float, whichever of the two spellings. So a line is not searched for those signs
  (on an import's thousands of lines the three searches cost twice orjson's own encoding). NaN
  and infinity, which JSON cannot hold, are written as ``null`` both ways: the stdlib would write
  ``NaN``, which no strict reader, ours included, accepts. What orjson refuses still goes the
  stdlib's way (a lone surrogate then fails to encode as UTF-8, as it always did).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json import encoder as _stdlib

try:  # compiled code: without its wheel every line takes the stdlib's way
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the platform
    _orjson = None  # type: ignore[assignment]  # no wheel: the checks below ask

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import
    from typing import Any, TypeVar

    _Out = TypeVar("_Out", str, bytes)


def compact_encoder(*, allow_nan: bool = True) -> Callable[[Any], str]:
    """A function that encodes a value as one compact JSON string (non-ASCII kept)."""
    plain = json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), allow_nan=allow_nan, check_circular=False
    )
    make = getattr(_stdlib, "c_make_encoder", None)
    if make is None:  # another Python, or the C accelerator is unavailable
        return plain.encode
    # The same arguments JSONEncoder.iterencode passes for a one-shot encode (CPython 3.11+).
    encode_value = make(
        None,  # markers: no cycle check
        plain.default,
        _stdlib.encode_basestring,  # ensure_ascii=False
        None,  # indent
        plain.key_separator,
        plain.item_separator,
        plain.sort_keys,
        plain.skipkeys,
        plain.allow_nan,
    )

    def encode(value: Any) -> str:
        return "".join(encode_value(value, 0))  # the C encoder returns its text in a tuple

    return encode


#: A one-digit negative exponent, as orjson writes it (``1e-6``; the stdlib writes ``1e-06``).
#: Followed by a hex digit it is a uuid's ``…2e-1a61…``, not a number: skipped by the regex itself.
#: Compiled (and kept by ``re``) the first time a request holds such a float, not at every start.
_SHORT_EXPONENT = rb"e-[0-9](?![0-9a-fA-F])"


def _short_exponent(out: bytes) -> bool:
    """Whether a *number* (not a uuid's ``…2e-1a…`` in a string) has a one-digit negative
    exponent: the digits before the ``e`` follow a ``:``, ``,`` or ``[``."""
    for match in re.finditer(_SHORT_EXPONENT, out):
        k = match.start() - 1
        while k >= 0 and out[k] in b"0123456789.":
            k -= 1
        if k >= 0 and out[k] == 45:  # a minus sign
            k -= 1
        if k < 0 or out[k] in b":,[":  # the start, or after a key or an item: a number
            return True
    return False


def _holds_float(value: Any) -> bool:
    """Whether a float is anywhere in ``value``: only a float can be written two ways."""
    # Only containers go on the stack: the strings and integers that fill a message are passed
    # over where they are found, not pushed and popped one by one.
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            item = item.values()
        elif kind is not list and kind is not tuple:
            if kind is float or (kind is not str and isinstance(item, float)):
                return True
            continue
        for x in item:
            kind = type(x)
            if kind is str or kind is int:
                continue
            if kind is dict or kind is list or kind is tuple:
                stack.append(x)
            elif kind is float or isinstance(x, float):
                return True
    return False


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in ``value`` (orjson writes them as ``null``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return True


#: Anything orjson would write its own way (dataclasses, datetimes, subclasses) it hands to
#: ``default``, which refuses; the stdlib then encodes it, or raises as it always did.
_PASSTHROUGH = (
    0
    if _orjson is None
    else _orjson.OPT_PASSTHROUGH_DATACLASS
    | _orjson.OPT_PASSTHROUGH_DATETIME
    | _orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


def line_encoder() -> Callable[[Any], str]:
    """Encode one trace line as text (see the module docstring for what it promises)."""
    return _line_encoder(lambda out: out.decode("utf-8"), lambda text: text)


def line_bytes_encoder(newline: bool = False) -> Callable[[Any], bytes]:
    """Encode one trace line as UTF-8 bytes, what the trace writer puts in its file; with
    ``newline``, ended by its newline (orjson writes it: no second call a line to add it)."""
    end = "\n" if newline else ""
    return _line_encoder(None, lambda text: (text + end).encode("utf-8"), newline)


def _line_encoder(
    from_orjson: Callable[[bytes], _Out] | None,
    from_stdlib: Callable[[str], _Out],
    newline: bool = False,
) -> Callable[[Any], _Out]:
    """orjson's bytes made ``_Out`` by ``from_orjson`` (``None``: kept as bytes), or else the
    stdlib's text made ``_Out`` by ``from_stdlib`` (which adds the newline itself, when
    ``newline`` asks orjson for one)."""
    stdlib = compact_encoder(allow_nan=False)

    def by_stdlib(value: Any) -> _Out:
        try:
            text = stdlib(value)
        except ValueError:  # NaN or infinity somewhere: null, as orjson writes it
            text = stdlib(_nan_as_null(value))
        return from_stdlib(text)

    if _orjson is None:
        return by_stdlib
    dumps, error, options = _orjson.dumps, _orjson.JSONEncodeError, _PASSTHROUGH
    if newline:
        options |= _orjson.OPT_APPEND_NEWLINE

    def encode(value: Any) -> _Out:
        try:
            out = dumps(value, default=_refuse, option=options)
        except (TypeError, error):
            return by_stdlib(value)
        return from_orjson(out)  # type: ignore[misc]  # not None: see the return below

    def encode_bytes(value: Any) -> bytes:
        # The writer's encoder: orjson's bytes as they are, with no call to convert them (it
        # runs once per line of every trace).
        try:
            return dumps(value, default=_refuse, option=options)
        except (TypeError, error):
            return by_stdlib(value)  # type: ignore[return-value]  # _Out is bytes: see below

    # Without from_orjson, _Out is bytes (line_bytes_encoder): a tie the TypeVar cannot state.
    return encode if from_orjson is not None else encode_bytes  # type: ignore[return-value]


def _nan_as_null(value: Any) -> Any:
    """``value`` with every NaN and infinity made ``None``."""
    if isinstance(value, float):
        return None if value != value or value in (float("inf"), float("-inf")) else value
    if isinstance(value, dict):
        return {k: _nan_as_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_nan_as_null(v) for v in value]
    return value


def bytes_encoder(*, allow_nan: bool = True) -> Callable[[Any], bytes]:
    """:func:`compact_encoder` as UTF-8 bytes, through orjson wherever that gives the same bytes
    (see the module docstring); with ``allow_nan=False`` NaN is refused as before."""
    stdlib = compact_encoder(allow_nan=allow_nan)

    def by_stdlib(value: Any) -> bytes:
        return stdlib(value).encode("utf-8")

    if _orjson is None:
        return by_stdlib
    dumps, error = _orjson.dumps, _orjson.JSONEncodeError
    options = _PASSTHROUGH

    # One function, not orjson's way wrapped in a fallback: every message of every rebuilt
    # request goes through it.
    def encode(value: Any) -> bytes:
        try:
            out = dumps(value, default=_refuse, option=options)
        except (TypeError, error):
            return by_stdlib(value)
        # A request body rarely holds a float (a tool's input might): without one, orjson's
        # bytes are the stdlib's, and the three searches below (a pass over the bytes each,
        # costlier than encoding them) are not needed. Walking the containers costs far less.
        if not _holds_float(value):
            return out
        if (
            b"0.0000" in out
            or (b"e-" in out and _short_exponent(out))
            or (b"null" in out and not _finite(value))
        ):
            return by_stdlib(value)  # a small float, NaN or infinity: the stdlib's way
        return out

    return encode
