"""Redaction by value: which variables count as secrets, and what a redacted string looks like."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tracer.trace import secret_values as values
from tracer.trace.events import DebugHook, Header
from tracer.trace.redact import Redactor
from tracer.trace.secret_values import (
    _url_password,
    name_looks_secret,
    name_words,
    secret_values,
    value_looks_secret,
)
from tracer.trace.writer import TraceWriter


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "DATABASE_URL",
        "SENTRY_DSN",
        "CI_JOB_JWT",
        "MY_PASSWD",
        "GH_PAT",
        "X_PWD",
    ],
)
def test_names_that_say_secret(name: str) -> None:
    assert name_looks_secret(name)


@pytest.mark.parametrize("name", ["PATH", "PWD", "OLDPWD", "SSH_AUTH_SOCK", "BYPASS_LIST", "HOME"])
def test_names_that_do_not(name: str) -> None:
    assert not name_looks_secret(name)


@pytest.mark.parametrize(
    "name",
    [
        "apiKey",
        "myAPIKey2Token",
        "GH_PAT",
        "a1B.c-d__E",
        "x9Y",
        "KEYBOARD_LAYOUT",
        "straßeKey",  # ß upper-cases to SS
        "ſecret",  # the long s upper-cases to S
        "ıd_Token",  # so does the dotless i, to I
        "中文_KEY",
        "",
        "__",
    ],
)
def test_a_name_is_cut_into_words_as_the_two_expressions_cut_it(name: str) -> None:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).upper()
    assert name_words(name) == [w for w in re.split(r"[^A-Z0-9]+", words) if w]


def test_every_secret_word_holds_a_root_the_quick_test_looks_for() -> None:
    # name_looks_secret cuts only a name that spells one of the roots: a word without one
    # would never be looked for.
    assert all(any(r in word for r in values._SECRET_ROOTS) for word in values._SECRET_NAME_PARTS)


def test_a_camel_case_name_says_secret_by_its_words() -> None:
    assert name_looks_secret("apiKey") and name_looks_secret("ſecret")
    assert not name_looks_secret("monkeyName") and not name_looks_secret("keyboardLayout")


@pytest.mark.parametrize(
    "value",
    [
        "sk-ant-api03-abcdefghijkl",
        "ghp_0123456789abcdefghij",
        "xoxb-1234-5678-abcdefgh",
        "AKIAIOSFODNN7EXAMPLE",
        "postgres://app:s3cr3t-pw@db.internal:5432/app",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    ],
)
def test_values_that_look_secret_whatever_the_name(value: str) -> None:
    assert value_looks_secret(value)
    assert secret_values({"INNOCENT_LOOKING": value})[value] == "INNOCENT_LOOKING"


#: The one expression value_looks_secret was, before it became startswith and two expressions
#: tried only where they can match (its compilation cost every import 1.5M instructions).
_AS_ONE = re.compile(
    r"""
    ^(?:sk-ant-|sk-|sk_live_|sk_test_|rk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-
       |xox[abprse]-|npm_|pypi-|AIza|https://hooks\.slack\.com/|https://discord(?:app)?\.com/api/)
    | ^(?:AKIA|ASIA)[A-Z0-9]{12,}
    | ^eyJ[\w-]+\.eyJ[\w-]+\.
    | ^[a-zA-Z][\w+.-]*://[^/:@\s]*:[^/@\s]+@
    """,
    re.VERBOSE,
)
_URL = re.compile(r"^[a-zA-Z][\w+.-]*://[^/:@\s]*:([^/@\s]+)@")


def test_a_value_looks_secret_exactly_when_the_one_expression_said_so() -> None:
    pieces = ["sk-", "sk_live_", "rk_live_", "gh", "p_", "github_pat_", "glpat-", "xoxb-", "xoxz-"]
    pieces += ["npm_", "pypi-", "AIza", "https://", "hooks.slack.com/", "discord", "app", ".com/"]
    pieces += ["api/", "AKIA", "ASIA", "IOSFODNN7EXAMPL", "iosf", "eyJ", "hb", ".", "-", "_"]
    pieces += ["postgres", "://", "user", ":", "pw", "@", "/", " ", "é", "0123", "Z"]
    rng = random.Random(12)
    values = ["".join(rng.choices(pieces, k=rng.randint(1, 7))) for _ in range(20_000)]
    values += ["AKIA" + "A" * 11, "AKIA" + "A" * 12, "ASIA" + "Ab" * 8, "eyJa.eyJb.", "eyJa.eyJ."]
    for value in values:
        assert value_looks_secret.__wrapped__(value) is bool(_AS_ONE.search(value)), value
        url = _url_password(value)
        assert (url and url.group(1)) == ((m := _URL.search(value)) and m.group(1)), value


def test_plain_values_of_plain_names_are_kept() -> None:
    found = secret_values({"EDITOR": "vim-but-long", "LANG": "C.UTF-8", "URL": "https://x.y/z"})
    assert found == {}


def test_short_values_are_not_secrets_unless_they_are_the_api_key() -> None:
    # TOKEN_TTL=60 must not turn every "60" into a redaction mark.
    assert secret_values({"TOKEN_TTL": "60"}) == {}
    redact = Redactor.from_environ({"TOKEN_TTL": "60", "ANTHROPIC_API_KEY": "k-12"})
    assert redact("60 seconds, key k-12") == "60 seconds, key [REDACTED:ANTHROPIC_API_KEY]"


def test_a_url_password_is_a_secret_on_its_own() -> None:
    url = "postgres://app:pw-0123456@db/app"
    redact = Redactor.from_environ({"DATABASE_URL": url})
    assert redact(url) == "[REDACTED:DATABASE_URL]"
    assert redact("password is pw-0123456.") == "password is [REDACTED:DATABASE_URL]."


def test_every_string_at_any_depth_and_keys_too() -> None:
    redact = Redactor({"hunter2hunter2": "MY_PASSWD"})
    value = {"a": ["x hunter2hunter2 y", {"hunter2hunter2": 1}], "n": 3, "t": ("hunter2hunter2",)}
    assert redact(value) == {
        "a": ["x [REDACTED:MY_PASSWD] y", {"[REDACTED:MY_PASSWD]": 1}],
        "n": 3,
        "t": ("[REDACTED:MY_PASSWD]",),
    }
    assert redact.bytes(b"..hunter2hunter2..") == b"..[REDACTED:MY_PASSWD].."


def test_the_longer_secret_wins_when_one_contains_the_other() -> None:
    redact = Redactor({"abcdefgh": "SHORT_TOKEN", "abcdefgh-more": "LONG_TOKEN"})
    assert redact("abcdefgh-more") == "[REDACTED:LONG_TOKEN]"


def test_the_writer_redacts_the_header_and_every_event(tmp_path: Path) -> None:
    redact = Redactor({"sk-ant-writer-test-0001": "ANTHROPIC_API_KEY"})
    header = Header(
        created="2026-01-01T00:00:00Z",
        source={"kind": "model", "note": "sk-ant-writer-test-0001"},
        tracer_version="0",
    )
    path = tmp_path / "t.trace.jsonl"
    with TraceWriter(path, header, redact=redact) as writer:
        writer(DebugHook(turn=1, hook="loop_turn", line="key=sk-ant-writer-test-0001"))
    text = path.read_text(encoding="utf-8")
    assert "sk-ant-writer-test-0001" not in text
    assert text.count("[REDACTED:ANTHROPIC_API_KEY]") == 2


def test_the_writer_reads_secrets_from_the_environment_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_PAT", "github_pat_11AAAAAAA0123456789")
    path = tmp_path / "t.trace.jsonl"
    header = Header(created="x", source={"kind": "import"}, tracer_version="0")
    with TraceWriter(path, header) as writer:
        writer(DebugHook(turn=1, hook="loop_turn", line="github_pat_11AAAAAAA0123456789"))
    assert "[REDACTED:GH_PAT]" in path.read_text(encoding="utf-8")


def test_a_secret_with_quotes_and_backslashes_is_found_in_its_json_form(tmp_path: Path) -> None:
    secret = 'pa"ss\\word-0123'
    path = tmp_path / "t.trace.jsonl"
    header = Header(created="x", source={"kind": "import"}, tracer_version="0")
    with TraceWriter(path, header, redact=Redactor({secret: "MY_PASSWD"})) as writer:
        writer(DebugHook(turn=1, hook="loop_turn", line=f"it is {secret}!"))
    text = path.read_text(encoding="utf-8")
    assert secret not in text and json.dumps(secret)[1:-1] not in text
    assert "it is [REDACTED:MY_PASSWD]!" in text


CREDENTIAL = "abcdefghijklmnop1234"


@pytest.mark.parametrize(
    ("key", "value", "written"),
    [
        ("Authorization", f"Bearer {CREDENTIAL}", "Bearer [REDACTED:authorization]"),
        ("authorization", f"basic {CREDENTIAL}", "basic [REDACTED:authorization]"),
        ("PROXY-AUTHORIZATION", f"Digest {CREDENTIAL}", "Digest [REDACTED:authorization]"),
        ("X-Api-Key", CREDENTIAL, "[REDACTED:authorization]"),
        ("x-api-key", f"Token {CREDENTIAL}", "Token [REDACTED:authorization]"),
        ("aws_secret_access_key", f"{CREDENTIAL}/+", "[REDACTED:aws_secret_access_key]"),
        ("AWS_SECRET_ACCESS_KEY", CREDENTIAL, "[REDACTED:aws_secret_access_key]"),
    ],
)
def test_a_credential_fields_value_is_redacted_under_its_key(
    key: str, value: str, written: str
) -> None:
    # The value alone has no shape: only its key says it is a credential.
    redact = Redactor({}, shapes=True)
    event = {"input": {"headers": {key: value, "Accept": "text/plain"}}}
    assert redact(event) == {"input": {"headers": {key: written, "Accept": "text/plain"}}}
    assert redact.found_in_bytes(json.dumps(event).encode())


@pytest.mark.parametrize("value", ["", "   ", "Bearer ", "[REDACTED]", "Bearer [REDACTED:GH_PAT]"])
def test_a_credential_field_with_nothing_left_to_hide_is_kept(value: str) -> None:
    redact = Redactor({}, shapes=True)
    assert redact({"Authorization": value}) == {"Authorization": value}


def test_only_the_fields_the_shapes_know_and_only_with_the_shapes_on() -> None:
    assert Redactor({}, shapes=True)({"authorization_url": CREDENTIAL, "note": CREDENTIAL}) == {
        "authorization_url": CREDENTIAL,
        "note": CREDENTIAL,
    }
    assert Redactor({}, shapes=False)({"Authorization": CREDENTIAL}) == {
        "Authorization": CREDENTIAL
    }


def test_the_writer_writes_no_credential_field_and_the_line_still_validates(
    tmp_path: Path,
) -> None:
    from tracer.trace.event_schema import checks
    from tracer.trace.events import ToolFinished

    header = Header(created="x", source={"kind": "import"}, tracer_version="0")
    event = ToolFinished(
        turn=1,
        tool_use_id="toolu_1",
        tool="WebFetch",
        input={"url": "https://x.test/", "headers": {"Authorization": f"Bearer {CREDENTIAL}"}},
        output={"headers": {"X-Api-Key": CREDENTIAL}, "status": 200},
    )
    for flush in (True, False):  # a recording's writer and an import's
        path = tmp_path / f"t{flush}.trace.jsonl"
        with TraceWriter(path, header, redact=Redactor({}, shapes=True), flush=flush) as writer:
            writer(event)
        text = path.read_text(encoding="utf-8")
        assert CREDENTIAL not in text
        lines = [json.loads(line) for line in text.splitlines()]
        assert lines[1]["input"]["headers"] == {"Authorization": "Bearer [REDACTED:authorization]"}
        assert lines[1]["output"]["headers"] == {"X-Api-Key": "[REDACTED:authorization]"}
        compiled = checks()
        assert compiled["header"](lines[0], "") == []
        assert compiled["tool_run"](lines[1], "") == []
