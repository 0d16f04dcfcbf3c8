"""Tokens as Claude Code counted them, checked against the raw records by hand.

``input_tokens`` alone is the fresh tail after the last cache breakpoint (a handful of tokens);
what the model read is input + cache read + cache write. The totals here were worked out from
the source files themselves (each response once, by ``message.id``, its last record's usage),
written down, and recomputed in the test from the raw lines, apart from the importer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracer.cli.show import token_line
from tracer.files.paths import ROOT
from tracer.importers.api_log.importer import import_api_log
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.tokens import Tokens, token_account, tokens_of

DATA = Path(__file__).parent.parent / "data" / "claude-code"
SHARED = Path(ROOT).parent / "shared" / "fixtures"
needs_fixtures = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/fixtures")


def _by_hand(path: Path) -> list[int]:
    """input, cache read, cache write, output: each message.id once, its last record's usage."""
    last: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") == "assistant":
            last[rec["message"]["id"]] = rec["message"].get("usage") or {}
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return [sum(u.get(k, 0) for u in last.values()) for k in (*keys, "output_tokens")]


def _fields(t: Tokens) -> list[int]:
    return [t.input, t.cache_read, t.cache_creation, t.output]


def test_our_broken_stream_session_counts_the_cut_off_answer_too(tmp_path: Path) -> None:
    source = DATA / "v2.1-resent-after-broken-stream.jsonl"
    out = tmp_path / "t.jsonl"
    import_claude_code(source, out)
    account = token_account(TraceReader(out))
    # By hand: msg_x1 3/12,000/500/1 (cut off), msg_x2 3/12,000/500/60, msg_x3 1/12,560/90/25,
    # msg_x4 69/12,650/0/11.
    assert _fields(account.total) == [76, 49_210, 1_090, 97] == _by_hand(source)
    assert account.total.prompt == 50_376
    assert [(r.request_index, r.cut_off) for r in account.rows] == [
        (1, True),
        (1, False),
        (2, False),
        (3, False),
    ]
    assert account.by_request()[1] == Tokens(3, 12_000, 500, 60)
    assert token_line(TraceReader(out)) == (
        "tokens over 4 model call(s): input 76, cache read 49,210, cache write 1,090, "
        "output 97 (50,376 read in all)"
    )


@needs_fixtures
def test_a_real_transcript_reads_tens_of_thousands_not_eight(tmp_path: Path) -> None:
    source = SHARED / "claude-code-transcripts" / "spotter-v2.1.38-tool-heavy.jsonl"
    out = tmp_path / "t.jsonl"
    import_claude_code(source, out)
    account = token_account(TraceReader(out))
    assert _fields(account.total) == [54, 88_231, 17_696, 212] == _by_hand(source)
    assert len(account.rows) == 4 and account.estimated == 0


@needs_fixtures
def test_the_api_log_counts_what_the_stream_said(tmp_path: Path) -> None:
    log = SHARED / "api-logs" / "claude-trace-2025-05-29-weather-app-first19.jsonl"
    out = tmp_path / "t.jsonl"
    import_api_log(log, out)
    # By hand from the SSE of the 7 main-loop calls: message_start's usage, message_delta's
    # output_tokens.
    expected = [0, 0, 0, 0]
    for line in log.read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        body = pair["request"]["body"]
        if not body.get("stream") or not str(body.get("model", "")).startswith("claude-sonnet"):
            continue
        for chunk in pair["response"]["body_raw"].split("\n"):
            if not chunk.startswith("data: "):
                continue
            event = json.loads(chunk[6:])
            if event["type"] == "message_start":
                u = event["message"]["usage"]
                expected[0] += u["input_tokens"]
                expected[1] += u.get("cache_read_input_tokens", 0)
                expected[2] += u.get("cache_creation_input_tokens", 0)
            elif event["type"] == "message_delta":
                expected[3] += event["usage"]["output_tokens"]
    account = token_account(TraceReader(out))
    assert _fields(account.total) == expected == [32, 95_960, 18_693, 3_113]


def test_no_usage_is_an_estimate_and_says_so() -> None:
    assert tokens_of({}) is None
    guess = tokens_of({"input_tokens": 0}, request_bytes=4_001)
    assert guess == Tokens(input=1_001, estimated=True)
    assert guess.line().startswith("≈1,001 in (estimated")
    assert tokens_of({"input_tokens": True, "output_tokens": "5"}) is None  # not counts


def test_usage_fields_that_are_not_counts_count_nothing_in_any_view(tmp_path: Path) -> None:
    # A transcript is someone's file: its usage may hold a string (a fuzzer's three megabytes
    # of "x" once crashed the Markdown and OTLP exports), a float, true, or a negative number.
    from tracer.cli.main import main
    from tracer.export.otlp.document import payload
    from tracer.export.walk import usage_totals, walk

    records = [
        json.loads(x)
        for x in (DATA / "v2.1-result-before-assistant.jsonl").read_text().splitlines()
    ]
    odd = {"input_tokens": "x" * 1000, "cache_read_input_tokens": 2.5, "output_tokens": True}
    for rec in records:
        if rec.get("type") == "assistant":
            rec["message"]["usage"] = {**odd, "cache_creation_input_tokens": 7}
    source = tmp_path / "odd.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    trace = tmp_path / "odd.trace.jsonl"
    import_claude_code(source, trace)
    events = list(TraceReader(trace))
    assert tokens_of(odd) is None  # nothing in it is a count
    responses = [e for e in events if e.kind == "response"]
    assert responses and usage_totals(events) == (7 * len(responses), 0)
    spans = payload(walk(trace))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    chat = next(s for s in spans if s["name"].startswith("chat"))
    named = {a["key"]: a["value"] for a in chat["attributes"]}
    assert named["gen_ai.usage.input_tokens"] == {"intValue": "7"}
    assert "gen_ai.usage.cache_read.input_tokens" not in named
    for fmt in ("md", "mermaid", "otlp-json"):
        assert main(["export", str(trace), "--format", fmt, "-o", str(tmp_path / fmt)]) == 0
    assert "x" * 100 not in (tmp_path / "md").read_text(encoding="utf-8")
    assert main(["show", str(trace)]) == 0
