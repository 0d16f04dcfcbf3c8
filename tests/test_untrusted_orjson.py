"""With orjson behind ``loads()``, every line reads as the standard library alone reads it.

The same values and the same refusals, for each of ``STRICT_LINES`` (depth at and past the bound,
duplicate keys, integers past 64 bits, infinities, surrogates, control characters), read as a
short line, whose text is searched, and inside a long one, whose parsed value is walked; for lines
of many small values, sorted by type before the walk; and for random numbers.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from untrusted_helpers import STRICT_LINES, _long

from tracer.errors import UserError
from tracer.files.untrusted import loads


def _both(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    from tracer.files import untrusted

    def read() -> Any:
        try:
            value = loads(raw, "f.jsonl", 3)
        except UserError as exc:
            return ("error", str(exc))
        return ("value", repr(value), [type(v).__name__ for v in _leaves(value)])

    fast = read()
    monkeypatch.setattr(untrusted, "_orjson", None)
    plain = read()
    monkeypatch.undo()
    return fast, plain


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


@pytest.mark.parametrize("raw", STRICT_LINES, ids=range(len(STRICT_LINES)))
def test_orjson_reads_every_line_as_the_stdlib_does(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracer.files import untrusted

    assert untrusted._orjson is not None  # the wheel is installed here; else this proves nothing
    fast, plain = _both(raw, monkeypatch)
    assert fast == plain


@pytest.mark.parametrize("raw", STRICT_LINES, ids=range(len(STRICT_LINES)))
def test_orjson_reads_every_long_line_as_the_stdlib_does(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long line is checked on its parsed value, not its text: the same values, the same
    errors."""
    fast, plain = _both(_long(raw), monkeypatch)
    assert fast == plain


def test_a_long_line_is_walked_and_a_short_one_searched() -> None:
    from tracer.files.untrusted import MAX_DEPTH, MISS, SHORT_LINE, quick_loads

    shallow = b'{"out":[' + b",".join([b'{"x":[1]}'] * 80) + b"]}"  # many brackets, not deep
    deep = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    for raw in (shallow, deep, b"[123456789012345678901]", b"[1e19]", b'"x"', b"1.5"):
        assert len(raw) <= SHORT_LINE < len(_long(raw))
    assert quick_loads(shallow) is not MISS and quick_loads(_long(shallow)) is not MISS
    assert quick_loads(deep) is MISS and quick_loads(_long(deep)) is MISS
    # Objects open containers too: a short line of nested objects, or of both kinds, is walked.
    objects = b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)
    mixed = b'[{"a":' * (MAX_DEPTH // 2 + 1) + b"1" + b"}]" * (MAX_DEPTH // 2 + 1)
    for nested in (objects, mixed):
        assert len(nested) <= SHORT_LINE
        assert quick_loads(nested) is MISS
    # The walk's bound, inside a long line (which adds a level): empty innermost containers
    # count, as the stdlib's reading counts them.
    for inner in (b"[]", b"{}", b'["s"]'):
        for levels, refused in ((MAX_DEPTH - 2, False), (MAX_DEPTH - 1, True)):
            raw = _long(b"[" * levels + inner + b"]" * levels)
            assert (quick_loads(raw) is MISS) is refused
    # A long integer: by its 19 digits in a short line, by the float orjson made in a long one.
    assert quick_loads(b"[123456789012345678901]") is MISS
    assert quick_loads(_long(b"[123456789012345678901]")) is MISS
    assert quick_loads(b"[1e19]") == [1e19] and quick_loads(_long(b"[1e19]")) is MISS
    assert quick_loads(_long(b"[18446744073709551615]"))["v"] == [2**64 - 1]  # still 64 bits
    assert quick_loads(b'"x"') == "x" and quick_loads(b"1.5") == 1.5  # not containers


def _array(items: list[bytes]) -> bytes:
    return b"[" + b",".join(items) + b"]"


def test_a_line_of_many_small_values_is_checked_as_closely_as_a_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long level of a walk is first sorted by type in C (_worth_a_look): plain values are
    passed over, of floats only the extremes compared, containers opened one by one. Every
    kind of long level still gets the answer the stdlib's reading gives."""
    from tracer.files.untrusted import _MANY, MAX_DEPTH, MISS, SHORT_LINE, quick_loads

    n = 10 * _MANY
    ints = [b"%d" % (i % 1000 - 500) for i in range(n)]
    floats = [b"%d.5" % (i - n) for i in range(n)]
    plain = [b"true", b"false", b"null", b'"s"', b"7"] * _MANY
    dicts = [b'{"a":%d,"b":"x","c":[1,null]}' % i for i in range(n)]

    def deep(levels: int) -> bytes:  # its innermost list at depth levels + 1 in an array
        return b"[" * levels + b"]" * levels

    near = 2**64 - 1  # the largest integer orjson reads as an integer; 2**64 it makes a float
    lines: dict[bytes, bool] = {  # line: whether quick_loads leaves it to the careful reading
        _array(ints): False,
        _array([*ints, b"%d" % near]): False,
        _array([*ints, b"%d" % (near + 1)]): True,  # a float orjson made of an integer
        _array(floats): False,
        _array([*floats[:9], b"-9223372036854775809", *floats[9:]]): True,  # the smallest
        _array([*floats, b"9223372036854775808.0"]): True,  # as large, written as a float
        _array([*plain, *floats]): False,  # mixed: the floats picked out
        _array([*plain, b"1e19", *floats]): True,
        _array(plain): False,  # booleans, nulls, strings and integers: nothing to check
        _array(dicts): False,  # opens with a container: walked as it is
        _array([*dicts, b'{"a":1e19}']): True,
        _array([*dicts, b'{"a":%s}' % deep(MAX_DEPTH - 2)]): False,
        _array([*dicts, b'{"a":%s}' % deep(MAX_DEPTH - 1)]): True,
        _array([*ints, deep(MAX_DEPTH - 1)]): False,  # a container after plain values
        _array([*ints, deep(MAX_DEPTH)]): True,
        _array([deep(MAX_DEPTH), *ints]): True,  # and first
        _array([*ints, b'{"x":' + _array([*ints, b"2e19"]) + b"}"]): True,  # a level down
    }
    for raw, refused in lines.items():
        assert len(raw) > SHORT_LINE  # the value is walked, its text never searched
        assert (quick_loads(raw) is MISS) is refused, raw[-80:]
        fast, plain_reading = _both(raw, monkeypatch)
        assert fast == plain_reading


def test_random_numbers_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import struct

    from tracer.files import untrusted

    rng = random.Random(18)
    numbers = [repr(struct.unpack("d", rng.randbytes(8))[0]) for _ in range(2000)]
    numbers = [n for n in numbers if n not in ("nan", "inf", "-inf")]
    # A run of 19 digits (0.0016413371262041813) sends a short line the stdlib's way; a long
    # line is orjson's unless it holds a float as large as a 64-bit integer.
    small = [n for n in numbers if abs(float(n)) < 2**63]
    assert any(re.search(r"[0-9]{19}", n) for n in small)
    floats = ("[" + ",".join(small) + "]").encode()
    assert len(floats) > untrusted.SHORT_LINE
    assert untrusted.quick_loads(floats) is not untrusted.MISS  # orjson reads this one
    ints = [str(rng.randrange(-(2**70), 2**70)) for _ in range(500)]
    lines = [
        floats,
        ("[" + ",".join(numbers) + "]").encode(),
        ("[" + ",".join(ints) + "]").encode(),
    ]
    for values in (numbers, ints):  # and short ones
        lines += [("[" + ",".join(values[i : i + 20]) + "]").encode() for i in range(0, 500, 20)]
    for raw in lines:
        fast, plain = _both(raw, monkeypatch)
        assert fast == plain
