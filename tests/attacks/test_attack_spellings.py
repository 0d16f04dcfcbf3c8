"""A known secret in any cheap spelling, and ordinary words kept (issue 31, point 5).

The API key came back whole in mixed case, with zero-width spaces between its characters, as
``\\uXXXX`` escapes, as HTML entities, as base32, and split over two tool calls; and the other
way, ``wayland``, ``debian`` and ``qwerty`` were replaced everywhere (``XDG_SESSION_TYPE``,
``DESKTOP_SESSION`` and any name holding ``KEY`` counted as secrets) and a 7-digit value was cut
out of a commit SHA. Each attack is tried on the redactor, and all of them through a real
recording whose trace and Markdown export are then searched for every spelling.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tracer.trace.redact import Redactor
from tracer.trace.secret_values import secret_values
from tracer.trace.spellings import unspell

KEY = "sk-ant-api03-Zq7Rw2Lp9XkT4vMn8BdC"
ENV = {"ANTHROPIC_API_KEY": KEY}


def _zero_width(text: str, mark: str = "\u200b") -> str:
    return mark.join(text)


def _mixed_case(text: str) -> str:
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(text))


SPELLINGS = {
    "mixed case": _mixed_case(KEY),
    "zero-width spaces": _zero_width(KEY),
    "soft hyphens": _zero_width(KEY, "\u00ad"),
    "word joiners and a BOM": "\ufeff" + _zero_width(KEY, "\u2060"),
    "\\uXXXX escapes": "".join(f"\\u{ord(c):04x}" for c in KEY),
    "\\U escapes, upper-case hex": "".join(f"\\U{ord(c):08X}" for c in KEY),
    "decimal entities": "".join(f"&#{ord(c)};" for c in KEY),
    "hex entities": "".join(f"&#x{ord(c):x};" for c in KEY),
    "named entities": KEY.replace("-", "&#45;").replace("s", "&#115;"),
    "an entity of an escape": "".join(f"&#92;u{ord(c):04x}" for c in KEY),
    "base32": base64.b32encode(KEY.encode()).decode(),
    "base32, lower-case": base64.b32encode(KEY.encode()).decode().lower(),
    "base32 inside a stream": base64.b32encode(b"pre" + KEY.encode() + b"post").decode(),
    "base64 (as before)": base64.b64encode(KEY.encode()).decode(),
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_the_key_in_a_cheap_spelling_is_redacted(spelling: str) -> None:
    redact = Redactor.from_environ(ENV)
    text = f"the key: {SPELLINGS[spelling]} (end)"
    out = redact(text)
    assert "[REDACTED:ANTHROPIC_API_KEY]" in out, out
    assert KEY.lower() not in unspell(out).lower()
    assert SPELLINGS[spelling] not in out
    assert redact.bytes(text.encode()) == out.encode()  # a kept file, the same way


def test_the_spellings_reach_the_slow_path_only_where_a_marker_is() -> None:
    redact = Redactor.from_environ(ENV)
    plain = "ordinary output with \\n and &amp; and \u200b but no key"
    assert redact(plain) == plain  # unspelled it holds no key: kept exactly as it was


@pytest.mark.parametrize("cut", [14, 17, 21])
def test_a_key_split_across_two_calls_is_caught_half_by_half(cut: int) -> None:
    redact = Redactor.from_environ(ENV)
    first, second = redact(f"part one: {KEY[:cut]}"), redact(f"part two: {KEY[cut:]}")
    assert KEY[:cut] not in first and KEY[cut:] not in second, (first, second)


@pytest.mark.parametrize(
    ("name", "value", "text"),
    [
        ("XDG_SESSION_TYPE", "wayland", "running under wayland today"),
        ("DESKTOP_SESSION", "debian", "debian bookworm"),
        ("KEYBOARD_LAYOUT", "qwerty", "a qwerty keyboard"),
        ("MONKEY_NAME", "bonobo-kong", "the bonobo-kong exhibit"),
        ("XDG_SESSION_DESKTOP", "gnome-classic", "gnome-classic session"),
        ("SESSION_MANAGER", "local/host:@/tmp/.ICE-unix/1", "ICE"),
    ],
)
def test_bookkeeping_and_names_holding_key_are_not_secrets(
    name: str, value: str, text: str
) -> None:
    assert secret_values({name: value}) == {}
    assert Redactor.from_environ({name: value})(text) == text


def test_a_short_value_is_never_cut_out_of_a_longer_word_or_hash() -> None:
    redact = Redactor.from_environ({"BUILD_TOKEN": "4817302", "MY_PASSWD": "hunter22"})
    sha = "9f3c04817302aa61d0b5e2c7a1f4e8b93d6c1a20"
    assert redact(f"commit {sha}") == f"commit {sha}"
    assert redact("the shunter22s and hunter22x") == "the shunter22s and hunter22x"
    assert redact("token=4817302, password: hunter22.") == (
        "token=[REDACTED:BUILD_TOKEN], password: [REDACTED:MY_PASSWD]."
    )
    assert redact("HUNTER22 shouted") == "[REDACTED:MY_PASSWD] shouted"  # any case


SECRET_NAMES = ["API_KEY", "SSH_PRIVATE_KEY", "GITHUB_TOKEN", "SESSION_SECRET", "DB_PASSWORD"]


@pytest.mark.parametrize("name", [*SECRET_NAMES, "apiKey"])
def test_secret_words_as_whole_parts_still_count(name: str) -> None:
    assert secret_values({name: "value-0123456789"}) == {"value-0123456789": name}


def test_every_spelling_through_a_recording_reaches_neither_trace_nor_export(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    # The scripted model knows the key (as a real one could read it from a file) and has the
    # command print it in every spelling, then in two halves across two calls.
    calls = [
        {"name": "Bash", "input": {"command": f"printf '%s\\n' {json.dumps(spelled)}"}}
        for spelled in SPELLINGS.values()
    ]
    halves = [KEY[:17], KEY[17:]]
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": calls},
                *[
                    {"tool_use": [{"name": "Bash", "input": {"command": f"echo {half}"}}]}
                    for half in halves
                ],
                {"text": "done"},
            ],
        }
    )
    trace = tmp_path / "t.trace.jsonl"
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(trace), env=ENV)
    assert proc.returncode == 0, proc.stderr
    export = tmp_path / "t.md"
    done = tracer_cli("export", str(trace), "--format", "md", "-o", str(export))
    assert done.returncode == 0, done.stderr
    for written in (trace.read_text(), export.read_text()):
        strings = _strings(written)
        for spelling, spelled in SPELLINGS.items():
            assert spelled not in strings, spelling
        assert KEY.lower() not in unspell(strings).lower()
        assert all(half not in strings for half in halves)
        assert "[REDACTED:ANTHROPIC_API_KEY]" in strings


def _strings(text: str) -> str:
    """Every string of a trace's JSON lines, decoded (or the text itself, for an export)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    try:
        for line in text.splitlines():
            walk(json.loads(line))
    except json.JSONDecodeError:
        return text
    return "\n".join(out)
