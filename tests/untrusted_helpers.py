"""What the bad-input tests share: the main walk to damage, the run, and the one-line check.

Each test builds the damage by hand (the fuzzer finds such inputs at random; these pin each one
down) and runs the real command line in-process (:func:`_run`), so what is checked is what a user
sees; :func:`_one_error` asserts it: exit 2, a single ``tracer:`` line holding the given words,
no traceback. ``STRICT_LINES`` are the JSON lines whose reading must not depend on orjson.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.files.paths import RECORDINGS_DIR

MAIN = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
TRACE_COMMANDS = [
    ["show"],
    ["hooks"],
    ["validate"],
    ["doctor"],
    ["export", "--format", "md"],
    ["export", "--format", "mermaid"],
    ["export", "--format", "otlp-json"],
]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code: int, err: str, *needles: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("tracer: ")]
    assert code == 2 and len(lines) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in MAIN.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects), "utf-8")
    return path


def _line_of(objects: list[dict[str, Any]], kind: str) -> int:
    """The 0-based list index (file line - 1) of the first event of ``kind``."""
    return next(i for i, o in enumerate(objects) if o.get("kind") == kind)


STRICT_LINES = [
    b'{"a":1}',
    # More brackets than MAX_DEPTH but shallow (a long tool output): orjson's, depth walked.
    b'{"out":[' + b",".join([b'{"x":[1]}'] * 80) + b"]}",
    b'{"s":"' + b"[{" * 80 + b'"}',  # the brackets are inside a string
    b"[" * 64 + b"]" * 64,  # exactly as deep as allowed
    b"[" * 65 + b"]" * 65,  # one level too deep
    b'{"a":' * 64 + b"1" + b"}" * 64,
    b'{"a":' * 65 + b"1" + b"}" * 65,
    b'{"a":1,"b":2,"a":3}',  # duplicate keys: the last value, at the first key's place
    b"[18446744073709551615, -9223372036854775808]",  # the largest 64-bit integers
    b"[18446744073709551616]",  # one more: orjson would make it a float
    b"[-9223372036854775809, 123456789012345678901234567890]",
    # Floats as large as 64-bit integers, written as floats: a long line sends them on too.
    b"[9223372036854775808.0, -9223372036854775808.0, 1e19, -1.5e300, 9223372036854775807]",
    b'{"id": "1234567890123456789012"}',  # a long digit run in a string: read either way
    b"[1e400, -1e400, 1e-400]",  # the stdlib reads infinity; orjson refuses
    b"[NaN]",
    b"[Infinity]",
    b"[-Infinity]",
    b'["\\ud800"]',  # lone surrogates: high, low, reversed
    b'["\\udc00"]',
    b'["\\udc00\\ud800"]',
    b'["\\ud83d\\ude00"]',  # a valid pair: an emoji
    b"[" * 64 + b"]" * 64,
    b"[" * 65 + b"]" * 65,
    b"\xef\xbb\xbf{}",  # a byte-order mark
    b' {"padded": true} \r',
    b'{"tab":"a\tb"}',  # a raw control character in a string
    b'{"nul":"a\x00b"}',
    b'{"bad":"\xff"}',
    b'{"cut":"\xe4\xb8"}',
    b"[0.1, -0.0, 2.2250738585072011e-308, 5e-324, 1.7976931348623157e308, 1E+2, 0.1e1]",
    b'{"zh":"\xe4\xb8\xad\xe6\x96\x87","u":"\\u4e2d\\u2028"}',
    b"[1,]",
    b"",
    b"   ",
    b"42",
]


def _long(raw: bytes) -> bytes:
    """``raw`` as a value in a line longer than SHORT_LINE: its parsed value is walked."""
    from tracer.files.untrusted import SHORT_LINE

    return b'{"pad":"' + b"x" * SHORT_LINE + b'","v":' + raw + b"}"
