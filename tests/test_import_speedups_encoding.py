"""The fast encoders write what ``json.dumps`` writes, or what reads back as the same values.

One compact encoder, built once, for trace lines and request bodies; orjson behind it where it is
installed. Awkward values (escapes, surrogates, huge integers, NaN, tuples, integer keys) and
random floats and request values must come out as the standard library writes them, or, for a
trace line's floats, read back as themselves; the request encoder refuses NaN as the SDK does; a
bulk writer's lines are on disk once it is flushed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracer.trace.compact_json import compact_encoder
from tracer.trace.events import Header, TurnStarted
from tracer.trace.writer import TraceWriter, dumps

AWKWARD_VALUES = [
    "plain",
    'quotes " and \\ and \n\t\x00 and \u2028',
    "中文，全角标点。",
    "😀 astral",
    "\ud800 lone surrogate",
    0,
    -1.5,
    1e300,
    -0.0,
    2**70,
    True,
    None,
    [],
    {},
    {"kind": "message", "content": [{"type": "text", "text": "é"}], "n": [1, 2.0, None]},
]


@pytest.mark.parametrize("value", AWKWARD_VALUES, ids=repr)
def test_the_compact_encoder_writes_what_json_dumps_writes(value: object) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert compact_encoder()(value) == expected
    assert compact_encoder(allow_nan=False)(value) == expected
    assert dumps(value) == expected


def test_the_request_encoder_still_refuses_nan_as_the_sdk_does() -> None:
    assert compact_encoder()(float("nan")) == "NaN"
    with pytest.raises(ValueError, match="not JSON compliant"):
        compact_encoder(allow_nan=False)({"x": float("inf")})


def test_a_bulk_writer_puts_its_lines_on_disk_when_flushed(tmp_path: Path) -> None:
    path = tmp_path / "bulk.trace.jsonl"
    header = Header(created="2026-01-01T00:00:00Z", source={"kind": "import"}, tracer_version="0")
    with TraceWriter(path, header, keep_time=True, flush=False) as writer:
        writer(TurnStarted(seq=1, turn=1, message_count=0))
        writer.flush()
        lines = path.read_text(encoding="utf-8").splitlines()
        assert [json.loads(line).get("kind") for line in lines] == [None, "turn_start"]


LINE_VALUES = [
    *AWKWARD_VALUES,
    1e-05,
    -3.5e-06,
    0.000015,
    [1e-9, {"x": -2.5e-7}],
    {"uuid": "3d011b20-f589-4f96-b62e-1a61e5eb50bf", "n": 1.5e-5},
    {"uuid": "3d011b20-f589-4f96-b62e-1a61e5eb50bf", "text": "a 1e-5 b 0.0000 c"},
    {"x": float("inf"), "y": None},
    {"x": [float("nan")], "y": None},
    {"k": None, "v": [None, 1.0]},
    {1: "an int key"},
    ("a", "tuple"),
]


def _as_read_back(value: object) -> object:
    """What a trace line of ``value`` must read back as: tuples become lists, non-string keys
    strings, NaN and infinity ``None`` (JSON cannot hold them)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {str(k): _as_read_back(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_read_back(v) for v in value]
    return value


@pytest.mark.parametrize("value", LINE_VALUES, ids=repr)
def test_trace_lines_read_back_as_the_values_written(value: object) -> None:
    from tracer.trace.compact_json import line_bytes_encoder, line_encoder

    text = line_encoder()(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 line can hold it, so none is written
        with pytest.raises(UnicodeEncodeError):
            line_bytes_encoder()(value)
        return
    assert line_bytes_encoder()(value) == text.encode("utf-8")
    assert json.loads(text) == _as_read_back(value)
    assert "NaN" not in text and "Infinity" not in text  # not JSON: a strict reader refuses it
    if not _has_float(value):  # floats may be spelled either way; everything else as json.dumps
        assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _has_float(value: object) -> bool:
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_float(v) for v in value)
    return isinstance(value, float)


def test_random_floats_read_back_as_themselves() -> None:
    import math
    import random
    import struct

    from tracer.trace.compact_json import line_encoder

    rng = random.Random(12)
    encode = line_encoder()
    for _ in range(20_000):
        f = struct.unpack("d", rng.randbytes(8))[0]
        back = json.loads(encode({"t": f, "items": [f, -f]}))
        if math.isfinite(f):
            assert back == {"t": f, "items": [f, -f]}
        else:
            assert back == {"t": None, "items": [None, None]}


def test_trace_lines_without_orjson_are_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracer.trace import compact_json

    monkeypatch.setattr(compact_json, "_orjson", None)
    encode = compact_json.line_encoder()
    for value in LINE_VALUES:
        assert json.loads(encode(value)) == _as_read_back(value)


@pytest.mark.parametrize("value", LINE_VALUES, ids=repr)
def test_request_bytes_are_what_the_sdk_encodes(value: object) -> None:
    from tracer.trace.compact_json import bytes_encoder

    encode = bytes_encoder(allow_nan=False)
    try:
        expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        expected_bytes = expected.encode()
    except (ValueError, UnicodeEncodeError) as exc:  # NaN refused; a lone surrogate unwritable
        with pytest.raises(type(exc)):
            encode(value)
        return
    assert encode(value) == expected_bytes


def test_random_request_values_encode_as_json_dumps_does() -> None:
    # The request encoder trusts orjson's bytes whenever the value holds no float: strings full
    # of escapes, integers near 64 bits, nesting, and a float now and then, each compared.
    import random

    from tracer.trace.compact_json import bytes_encoder

    rng = random.Random(7)
    encode = bytes_encoder(allow_nan=False)
    alphabet = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "中", "\u2028", "😀", "a", " "]

    def value(depth: int) -> object:
        pick = rng.randrange(9 if depth < 4 else 5)
        if pick == 0:
            return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        if pick == 1:
            return rng.choice([0, -1, 2**63 - 1, -(2**63), 2**64 - 1, rng.randrange(-999, 999)])
        if pick == 2:
            return rng.choice([True, False, None])
        if pick == 3:
            return rng.choice([0.5, 1e-06, 1e-5, 123456789.125, -0.0, 1e300, 2.5e-308])
        if pick == 4:
            return "text null e-5 0.00001"  # what the old searches looked for, inside a string
        if pick in (5, 6):
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{i}{rng.choice(alphabet)}": value(depth + 1) for i in range(rng.randrange(4))}

    for _ in range(3_000):
        v = value(0)
        assert encode(v) == json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode()
