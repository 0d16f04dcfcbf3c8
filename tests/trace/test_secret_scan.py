"""The one-pass search for secrets: the same answers as searching each needle in turn, with the
compiled automaton or without it, line by line or a batch of lines at once; and the bulk writer
that uses it writes what the line-by-line writer writes."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tracer.trace import many_substrings, writer
from tracer.trace.events import DebugHook, Header, ToolFinished
from tracer.trace.redact import Redactor
from tracer.trace.secret_shapes import holds_a_shape, redact_shapes
from tracer.trace.writer import TraceWriter

SECRETS = {
    "hunter2hunter2": "MY_PASSWD",
    'pa"ss\\word-0123': "QUOTED",
    "line-one\nline-two": "TWO_LINES",  # its raw form holds a newline, its JSON form does not
}
#: Texts for the lines: each holds a secret, a shape, a hint without a shape, or nothing.
TEXTS = [
    "ordinary output, nothing to see",
    "the password is hunter2hunter2.",
    "in base64: " + base64.b64encode(b"hunter2hunter2").decode(),
    "upper: HUNTER2HUNTER2",
    'quoted: pa"ss\\word-0123',
    "two lines: line-one\nline-two",
    "line-one",  # half of a secret: nothing
    "ask_me later, risk_free",  # sk_ and rk_ with no key after them
    "a key: sk_live_0123456789abcdefXYZ",
    "中文在前 sk_ 然后 sk_test_0123456789abcdef",  # offsets after non-ASCII text
    "Authorization: Bearer abcdefghijklmnop1234",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig and eyJ alone",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIx\n-----END RSA PRIVATE KEY-----",
    "webhook https://hooks.slack.com/services/T000/B000/XXXX",
    "x-api-key=sk-ant-api03-" + "b" * 30,
    "AKIAIOSFODNN7EXAMPLE " + "ghp_" + "a" * 36,
    "sk-" + "short",
]


def _needle_by_needle(redact: Redactor, line: bytes) -> bool:
    """What the writer asked of every line before the one-pass search: each JSON form of each
    secret searched for in turn (in any case), then the shapes whose hints the decoded line
    holds."""
    if any(
        form.encode("utf-8", "surrogatepass").lower() in line.lower() for form in redact._in_json
    ):
        return True
    return redact.shapes and holds_a_shape(line.decode("utf-8", "surrogatepass"))


def _lines() -> list[bytes]:
    return [json.dumps({"kind": "debug", "line": t}, ensure_ascii=False).encode() for t in TEXTS]


@pytest.fixture(params=["compiled", "stdlib"])
def search(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs twice: with the automaton, and as if its wheel were missing."""
    if request.param == "compiled":
        if many_substrings._aho is None:
            pytest.skip("ahocorasick-rs is not installed")
    else:
        monkeypatch.setattr(many_substrings, "_aho", None)
    return str(request.param)


@pytest.mark.parametrize("short", [False, True])
def test_both_searches_find_every_occurrence_overlapping_ones_too(search: str, short: bool) -> None:
    needles = [b"sk_", b"ask_", b"k_l", b"aaa", b"\n"]
    haystack = b"ask_live aaaa\nsk_"
    built = many_substrings.finder(needles, short_haystacks=short)  # the NFA, or the DFA
    found = sorted(many_substrings.occurrences(built, haystack))
    expected = sorted(
        (i, at, at + len(n))
        for i, n in enumerate(needles)
        for at in range(len(haystack))
        if haystack.startswith(n, at)
    )
    assert found == expected and len(found) == 7
    kind = type(many_substrings.finder(needles)).__name__
    assert (kind == "OneAtATime") == (search == "stdlib")


@pytest.mark.parametrize("shapes", [True, False])
def test_a_line_is_found_to_hold_a_secret_as_by_searching_each_needle(
    search: str, shapes: bool
) -> None:
    redact = Redactor(SECRETS, shapes=shapes)
    answers = [redact.found_in_bytes(line) for line in _lines()]
    assert answers == [_needle_by_needle(redact, line) for line in _lines()]
    assert answers == [redact.found_in(line.decode()) for line in _lines()]
    assert answers[1] is True and answers[8] is shapes
    assert not any(answers[k] for k in (0, 6, 7, 16))  # nothing, half a secret, hints alone


def test_a_batch_gives_the_lines_that_hold_one_and_no_other(search: str) -> None:
    redact = Redactor(SECRETS, shapes=True)
    lines = _lines()
    batch = b"\n".join(lines) + b"\n"
    starts = [sum(len(x) + 1 for x in lines[:k]) for k in range(len(lines))]
    expected = [
        (starts[k], starts[k] + len(line))
        for k, line in enumerate(lines)
        if _needle_by_needle(redact, line)
    ]
    assert redact.lines_to_redact(batch) == expected
    flagged = {starts.index(start) for start, _end in expected}
    assert flagged == set(range(len(TEXTS))) - {0, 6, 7, 16}


def test_a_needle_with_a_newline_is_never_found_across_two_lines(search: str) -> None:
    # "line-one" ends one JSON line and "line-two" starts the next only if the lines were not
    # JSON; a raw newline between two bare strings stands for that. Neither line holds it.
    redact = Redactor({"e\n{": "ACROSS", "line-one\nline-two": "TWO_LINES"}, shapes=False)
    batch = b'{"a":"line-one"}\n{"b":"line-two"}\n'
    assert redact.lines_to_redact(batch) == []
    assert redact.found_in_bytes(b"line-one\nline-two")  # in one piece of bytes it is there


def test_text_and_bytes_redact_as_before(search: str) -> None:
    redact = Redactor(SECRETS, shapes=True)
    for text in TEXTS:
        slow = text
        for form, name in redact.secrets:  # each in turn, longest first, in any case
            slow = re.sub(re.escape(form), f"[REDACTED:{name}]", slow, flags=re.IGNORECASE)
        slow = redact_shapes(slow)
        assert redact.text(text) == slow, text
        assert redact.bytes(text.encode() + b" \xff") == slow.encode() + b" \xff", text
    assert redact.text(TEXTS[0]) is TEXTS[0]  # nothing found: the string itself, not a copy


def _events() -> list[Any]:
    events: list[Any] = []
    for k in range(300):
        text = TEXTS[k % len(TEXTS)]
        if k % 3:
            events.append(DebugHook(turn=k, hook="loop_turn", line=f"{k}: {text}"))
        else:
            events.append(
                ToolFinished(
                    turn=k,
                    tool_use_id=f"toolu_{k}",
                    tool="Bash",
                    input={"command": "env", "headers": {"Authorization": f"x{k}"}},
                    output={"stdout": f"{text}\n" * 20, "stderr": "", "exit_code": 0},
                )
            )
    return events


HEADER = Header(created="x", source={"kind": "import"}, tracer_version="0")


def _write(path: Path, *, flush: bool, atomic: bool = False, every: int = 0) -> bytes:
    redact = Redactor(SECRETS, shapes=True)
    with TraceWriter(path, HEADER, keep_time=True, redact=redact, flush=flush, atomic=atomic) as w:
        for k, event in enumerate(_events()):
            w(event)
            if every and k % every == 0:
                w.flush()
    return path.read_bytes()


def test_the_bulk_writer_writes_what_the_line_by_line_writer_writes(
    search: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = _write(tmp_path / "live.jsonl", flush=True)
    assert b"hunter2hunter2" not in live and b"sk_live_0123" not in live
    assert b"[REDACTED:authorization]" in live and live.count(b"\n") == 301
    assert _write(tmp_path / "bulk.jsonl", flush=False, atomic=True) == live
    # Small batches: many of them, cut anywhere, some flushed early.
    monkeypatch.setattr(writer, "BULK_BUFFER", 700)
    assert _write(tmp_path / "small.jsonl", flush=False) == live
    assert _write(tmp_path / "flushed.jsonl", flush=False, every=7) == live


def test_flush_puts_the_pending_lines_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "t.trace.jsonl"
    w = TraceWriter(path, HEADER, redact=Redactor(SECRETS), flush=False)
    w(DebugHook(turn=1, hook="loop_turn", line="hunter2hunter2"))
    assert path.read_bytes() == b""  # waiting to be searched with the next lines
    w.flush()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and "[REDACTED:MY_PASSWD]" in lines[1]
    w(DebugHook(turn=2, hook="loop_turn", line="two"))
    w.close()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 3


def test_a_failed_atomic_import_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    target = tmp_path / "t.trace.jsonl"
    target.write_bytes(b"the old trace\n")
    with (
        pytest.raises(RuntimeError),
        TraceWriter(target, HEADER, redact=Redactor(SECRETS), flush=False, atomic=True) as w,
    ):
        for event in _events():
            w(event)
        w.flush()  # even what was flushed is only in the hidden partial file
        raise RuntimeError("the import failed")
    assert target.read_bytes() == b"the old trace\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.trace.jsonl"]


def test_an_error_while_writing_the_last_batch_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.trace.jsonl"
    redact = Redactor(SECRETS)
    w = TraceWriter(target, HEADER, redact=redact, flush=False, atomic=True)
    w(DebugHook(turn=1, hook="loop_turn", line="one"))

    def broken(batch: bytes) -> list[tuple[int, int]]:
        raise OSError("disk full")

    monkeypatch.setattr(redact, "lines_to_redact", broken)
    with pytest.raises(OSError):
        w.close()
    assert list(tmp_path.iterdir()) == []


def _every_occurrence_line_by_line(scan: Any, batch: bytes) -> list[tuple[int, int, bool, Any]]:
    """What :meth:`SecretScan.lines` must answer: each line searched whole, every occurrence."""
    out, start = [], 0
    for line in batch.split(b"\n")[:-1]:
        secret, hints = scan.what_is_in(line)
        if secret or hints:
            out.append((start, start + len(line), secret, hints))
        start += len(line) + 1
    return out


def test_the_quick_batch_search_names_every_line_and_every_hint_in_it(search: str) -> None:
    # Needles that overlap, hide inside each other and sit late in long lines: the quick pass
    # reports one occurrence per stretch and skips the rest, and the second look, which
    # searches only around what the quick pass found (every stretch of the batch at once),
    # must still find them all, with their offsets in the line, and nothing across stretches.
    import random

    redact = Redactor({"ask_sk_": "NESTED", "sk-ant": "KEY"}, shapes=True)
    pieces = ["ask_", "sk_", "sk-", "eyJ", "k_l", "x" * 50, "中文", "ghp_", "-", "_", "a", " "]
    pieces += ["xo", "x", "ASI", "AKIA"]  # xoxox, ASIAKIA: needles of one search overlapping
    rng = random.Random(12)
    for _ in range(200):
        lines = [
            "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40))).encode()
            for _ in range(rng.randrange(1, 8))
        ]
        batch = b"\n".join(lines) + b"\n"
        scan = redact._scan
        assert _sorted(scan.lines(batch)) == _sorted(_every_occurrence_line_by_line(scan, batch))


def test_a_needle_is_never_found_across_two_stretches_searched_together(search: str) -> None:
    # The second look joins the batch's stretches with a newline: a secret whose raw form
    # holds one would be there, across the end of one line's stretch and the start of the next.
    redact = Redactor({"x}\nsk_live_": "ACROSS"}, shapes=True)
    batch = b'{"a":"sk_live_ x}\nsk_live_ y"}\n'
    scan = redact._scan
    assert _sorted(scan.lines(batch)) == _sorted(_every_occurrence_line_by_line(scan, batch))
    assert [secret for _a, _b, secret, _hints in scan.lines(batch)] == [False, False]


def _sorted(lines: list[tuple[int, int, bool, Any]]) -> list[tuple[int, int, bool, Any]]:
    """The hints' offsets in order: which order they come in is not part of the answer (the
    stdlib's way finds them needle by needle)."""
    return [(a, b, s, {k: sorted(v) for k, v in hints.items()}) for a, b, s, hints in lines]


#: Pieces of text around each shape that the writer tries only where its quick test lets it
#: (secret_shapes._MAY_START), the first as the credential opens: some make a credential, many
#: only its hint.
_AROUND_HINTS = {
    "url_password": ["https://", "user", ":", "pa55word", "@", "host", "/", " ", '"', "u:p@"],
    "stripe_key": ["sk_", "rk_", "live_", "test_", "ta", "0123456789abcdef", " ", "_"],
    "slack_token": ["xox", "a-", "b-", "p-", "r-", "s-", "e-", "p", "-", "1234567890abc", " "],
    "api_key": ["sk-", "ant-", "ta", "_", " ", "-", "é", "abcdefghij0123456789", "."],
}


@pytest.mark.parametrize("shape", sorted(_AROUND_HINTS))
def test_a_shape_is_found_where_its_hint_is_as_its_expression_finds_it(
    search: str, shape: str
) -> None:
    # The writer tries a shape's expression only where its quick test says a match may start
    # (a "://" with an "@" after it before any "/", "sk_" going on "live_", ...): the answers
    # are still the expressions' own, each run along the whole text.
    import random

    pieces = _AROUND_HINTS[shape]
    rng = random.Random(7)
    redact = Redactor({}, shapes=True)
    texts = ["postgres://app:s3cr3t-pw@db/app", "https://example.com/a@b", "ssh://git@host:22/x"]
    for k in range(1200):  # half of them open as the credential does
        start = pieces[0] if k % 2 else ""
        texts.append(start + "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 9))))
    found = 0
    for text in texts:
        data = json.dumps({"line": text}, ensure_ascii=False).encode()
        by_expression = holds_a_shape(data.decode())  # every hinted shape, along the whole text
        assert redact.found_in_bytes(data) == by_expression, text
        found += by_expression
    assert 30 < found < len(texts) - 30  # texts with the credential and without it
