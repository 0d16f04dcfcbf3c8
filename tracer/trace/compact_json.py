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
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _stdlib
from typing import Any


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
