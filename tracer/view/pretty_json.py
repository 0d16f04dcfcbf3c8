"""JSON indented by two spaces, exactly as ``json.dumps(value, ensure_ascii=False, indent=2)``
writes it, in about half the time.

The raw view (:mod:`tracer.view.raw`) pretty-prints every record of a step, and the web page
does that for every step of a trace: with an indent, the standard library leaves its C encoder
for a pure-Python one built of nested generators, which was a tenth of a big export. This walk
writes the same text (strings and numbers still go through the standard encoder's own
functions); anything it does not know (a key that is not a string, a value JSON has no type
for) falls back to ``json.dumps`` with ``default=str``, so the result never differs.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

_INFINITY = float("inf")


class _Unusual(Exception):
    """A value the fast walk leaves to ``json.dumps``."""


def pretty_json(value: Any) -> str:
    """``value`` as ``json.dumps(value, ensure_ascii=False, indent=2, default=str)`` would."""
    out: list[str] = []
    try:
        _put(value, "", out)
    except (_Unusual, RecursionError):
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return "".join(out)


def _float(number: float) -> str:
    # What json's encoder writes for the floats JSON itself cannot spell.
    if number != number:
        return "NaN"
    if number == _INFINITY:
        return "Infinity"
    if number == -_INFINITY:
        return "-Infinity"
    return float.__repr__(number)


def _put(value: Any, pad: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = pad + "  "
        sep = "{\n" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unusual
            out.append(sep + encode_basestring(key) + ": ")
            _put(item, inner, out)
            sep = ",\n" + inner
        out.append("\n" + pad + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        sep = "[\n" + inner
        for item in value:
            out.append(sep)
            _put(item, inner, out)
            sep = ",\n" + inner
        out.append("\n" + pad + "]")
    else:
        raise _Unusual
