"""The importer's shortcuts give exactly what the plain computation gives.

An import normalizes the history and hashes the request body before every call. To stay fast on
long sessions it reuses the previous call's work (:mod:`tracer.importers.normal_cache`,
:mod:`tracer.importers.body_hash`); these tests check, on every call of every transcript we
have, that the shortcut and the full computation agree.
"""

from __future__ import annotations

import gc
import hashlib
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tracer.errors import UserError
from tracer.files.paths import ROOT
from tracer.importers import normal_cache
from tracer.importers.claude_code import importer as claude_code
from tracer.importers.claude_code.importer import load_transcript
from tracer.importers.claude_code.journey import emit_transcript
from tracer.importers.jsonl import parse_lines, read_jsonl
from tracer.importers.output import ImportReport, collector_paused
from tracer.model.api_messages import materialize, normalize_messages_for_api
from tracer.trace.compact_json import compact_encoder
from tracer.trace.events import Header, TurnStarted
from tracer.trace.requests import encode_body, rebuild_requests
from tracer.trace.writer import EventList, TraceWriter, dumps

DATA = Path(__file__).parent / "data" / "claude-code"
SHARED = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"
SOURCES = sorted(
    p for p in DATA.rglob("*.jsonl") if p.stat().st_size and not p.name.startswith("agent-")
)
SOURCES += sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_cached_normalization_and_hashes_match_the_full_ones(
    source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    plain = normal_cache.NormalCache.normalize

    def checked(self: normal_cache.NormalCache, messages: list) -> list:
        fast = plain(self, messages)
        full = normalize_messages_for_api(messages)
        assert [(a.role, a.parts) for a in fast] == [(a.role, a.parts) for a in full]
        calls.append(len(messages))
        return fast

    monkeypatch.setattr(normal_cache.NormalCache, "normalize", checked)
    sink = EventList()
    builder = emit_transcript(load_transcript(source), sink)
    assert len(calls) >= builder.request_index
    events = whole_messages(sink.events)
    by_uuid = {
        e.uuid: {"type": e.type, "content": e.content, "attachment": e.attachment}
        for e in events
        if e.kind == "message"
    }
    for request in rebuild_requests(events):
        body = encode_body(
            {"model": request.body["model"], "messages": materialize(request.api_messages, by_uuid)}
        )
        assert (len(body), hashlib.sha256(body).hexdigest()) == (
            request.event.bytes,
            request.event.sha256,
        )


def whole_messages(events: list[Any]) -> list[Any]:
    """The events with each message's pointed-at first block put back, as the trace reader
    puts it back (an import writes a tool result's block once, in its ``mapping`` step)."""
    return [
        replace(e, content=[events[e.block_seq - 1].block, *(e.content or [])])
        if e.kind == "message" and e.block_seq
        else e
        for e in events
    ]


# -- reading: the scanner called directly, lines decoded one by one ------------------------------

AWKWARD_LINES = [
    '{"type":"user","n":1}',
    "",
    "   ",
    '{"type":"assistant"}\r',  # a file written with CRLF line ends
    '   {"padded":true}   ',
    '{"a":1} trailing words',
    "[1, 2]",
    "42",
    '"just a string"',
    '{"text":"中文 and 😀","nested":{"x":[1.5,null,true]}}',
    '{"broken": ',
    "\ufeff{}",  # a byte-order mark json.loads refuses
    '{"last":"line"}',
]


def _plain_parse(lines: list[str]) -> tuple[list[tuple[int, dict]], int | None, dict[str, int]]:
    """What parse_lines did before its shortcut: json.loads on every non-blank line."""
    records, first_bad, skipped = [], None, {}
    for number, raw in enumerate(lines, start=1):
        if not raw or raw.isspace():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            first_bad = first_bad or number
            skipped["unreadable lines"] = skipped.get("unreadable lines", 0) + 1
            continue
        records.append((number, obj))
    return records, first_bad, skipped


def test_parse_lines_reads_every_awkward_line_as_json_loads_does() -> None:
    report = ImportReport(source="awkward")
    records, first_bad = parse_lines(AWKWARD_LINES, 1, report)
    assert (records, first_bad, report.skipped) == _plain_parse(AWKWARD_LINES)
    assert [n for n, _ in records] == [1, 4, 5, 10, 13]


def test_a_torn_last_line_is_still_told_apart_from_a_broken_one() -> None:
    report = ImportReport(source="torn")
    records, first_bad = parse_lines(['{"a":1}', '{"b": [1, 2'], 1, report, torn=True)
    assert (records, first_bad) == ([(1, {"a": 1})], None)
    assert report.skipped == {"torn last line": 1}


def test_lines_decoded_one_by_one_are_the_lines_of_the_decoded_file(tmp_path: Path) -> None:
    # Invalid UTF-8 right before a newline, a character cut in half, wide characters on some
    # lines only, CRLF, and a last line without its newline. Each line is decoded strictly on
    # its own (tracer.files.untrusted): a line with a bad byte is unreadable and counted, never
    # silently mended, and the lines around it read as they would in a clean file.
    data = (
        b'{"a":"\xe4\xb8"}\n{"b":"\xf0\x9f\x98\x80"}\r\n\xff\xfe\n{"c":"\xe4\xb8\xad\xe6"}\n'
        b'{"plain":"ascii"}\n{"d":"cut'
    )
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(data)
    report = ImportReport(source=str(path))
    got = read_jsonl(path, report)
    assert got == [(2, {"b": "\U0001f600"}), (5, {"plain": "ascii"})]
    assert report.skipped == {"unreadable lines": 3, "torn last line": 1}
    assert any(f"{path}:1: " in note and "UTF-8" in note for note in report.notes), report.notes


# -- writing: one compact encoder, built once ------------------------------------------------------

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


def test_an_import_runs_without_the_collector_and_gives_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import pauses Python's cycle collector (:func:`collector_paused`) while it reads and
    writes, and always gives it back: on after an import that worked and after one that failed,
    still off when the caller had turned it off."""
    source = DATA / "v2.1-subagent-only-in-progress-records.jsonl"
    on_while_reading: list[bool] = []
    on_while_writing: list[bool] = []
    read, write = claude_code.load_transcript, claude_code.emit_all

    def reading(path: Path, depth: int = 0) -> Any:
        on_while_reading.append(gc.isenabled())
        return read(path, depth)

    def writing(t: Any, emit: Any) -> Any:
        on_while_writing.append(gc.isenabled())
        return write(t, emit)

    monkeypatch.setattr(claude_code, "load_transcript", reading)
    monkeypatch.setattr(claude_code, "emit_all", writing)
    assert gc.isenabled()
    claude_code.import_claude_code(source, tmp_path / "ok.trace.jsonl")
    assert on_while_reading == [False] and on_while_writing == [False]
    assert gc.isenabled()
    with pytest.raises(UserError):
        claude_code.import_claude_code(tmp_path / "missing.jsonl", tmp_path / "failed.jsonl")
    assert on_while_reading == [False, False] and gc.isenabled()
    gc.disable()
    try:
        claude_code.import_claude_code(source, tmp_path / "off.trace.jsonl")
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- trace lines through orjson: byte for byte what the stdlib writes ---------------------------

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


def _is_clean_reference(rec: dict) -> bool:
    """The record check as first written, field by field with isinstance (the reference)."""
    from tracer.importers.shapes import _BLOCK_IDS, _FLAGS, _IDS
    from tracer.trace.shapes import _block_problems

    kind = rec.get("type")
    if not isinstance(kind, str):
        return False
    for key in _IDS:
        value = rec.get(key)
        if value is not None and not isinstance(value, str):
            return False
    for key in _FLAGS:
        if key in rec and not isinstance(rec[key], bool):
            return False
    if kind in ("user", "assistant"):
        message = rec.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("usage", {}), dict):
            return False
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    return False
                for key in _BLOCK_IDS:
                    value = block.get(key)
                    if value is not None and not isinstance(value, str):
                        return False
                # And what a trace's reader takes: a type, a tool result's content text or
                # blocks (the reader's own check, so the two can never drift apart).
                if _block_problems(block, "block"):
                    return False
        elif not isinstance(content, str):
            return False
        for key in ("id", "model", "stop_reason"):
            value = message.get(key)
            if value is not None and not isinstance(value, str):
                return False
    wanted = {"attachment": "attachment", "progress": "data"}.get(kind)
    if wanted is not None and not isinstance(rec.get(wanted), dict):
        return False
    return "compactMetadata" not in rec or isinstance(rec["compactMetadata"], dict)


def _spoiled(rec: dict) -> list[dict]:
    """``rec`` with one field at a time given each wrong type (and a few right ones)."""
    from tracer.importers.shapes import _BLOCK_IDS, _FLAGS, _IDS

    odd = [None, 1, 1.5, True, False, "x", [], {}, [1]]
    out = []
    for key in (*_IDS, *_FLAGS, "type", "message", "attachment", "data", "compactMetadata"):
        out += [{**rec, key: v} for v in odd]
        out.append({k: v for k, v in rec.items() if k != key})
    message = rec.get("message")
    if isinstance(message, dict):
        for key in ("id", "model", "stop_reason", "usage", "content"):
            out += [{**rec, "message": {**message, key: v}} for v in odd]
        content = message.get("content")
        if isinstance(content, list) and content:
            for key in _BLOCK_IDS:
                for v in odd:
                    blocks = [{**content[0], key: v}, *content[1:]]
                    out.append({**rec, "message": {**message, "content": blocks}})
            out.append({**rec, "message": {**message, "content": [*content, 3]}})
            for inner in (-1, None, "text", [], [1], [{"type": 1}], [{"type": "text"}], {}):
                result = {"type": "tool_result", "tool_use_id": "t", "content": inner}
                out.append({**rec, "message": {**message, "content": [*content, result]}})
            out.append({**rec, "message": {**message, "content": [*content, {"text": "no type"}]}})
    return out


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_quick_record_check_says_what_the_field_by_field_one_says(source: Path) -> None:
    from tracer.importers.shapes import _is_clean

    records = read_jsonl(source, ImportReport(source=str(source)))
    seen: set[str] = set()
    checked = 0
    for _, rec in records:
        assert _is_clean(rec) == _is_clean_reference(rec)
        shape = f"{rec.get('type')}/{rec.get('subtype')}/{sorted(rec)}"
        if shape in seen:  # every mutation of one record of each shape is plenty
            continue
        seen.add(shape)
        for spoiled in _spoiled(rec):
            assert _is_clean(spoiled) == _is_clean_reference(spoiled), spoiled
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_count_checks_one_pass_finds_the_blocks_the_record_helpers_find(source: Path) -> None:
    from tracer.importers.claude_code.counts import _blocks_of
    from tracer.importers.claude_code.record_kinds import tool_result_ids, tool_use_ids

    records = [r for _, r in read_jsonl(source, ImportReport(source=str(source)))]
    mirrored = [r["data"].get("message") for r in records if isinstance(r.get("data"), dict)]
    odd = [{"message": {"content": [{"type": "tool_use", "id": 7}, "x", {"type": "tool_result"}]}}]
    found = 0
    for rec in [*records, *(m for m in mirrored if isinstance(m, dict)), *odd]:
        uses, results = _blocks_of(rec)
        assert (uses, results) == (tool_use_ids(rec), tool_result_ids(rec))
        found += len(uses) + len(results)
    assert found > 0


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_active_paths_one_look_at_a_message_is_what_the_record_helpers_say(
    source: Path,
) -> None:
    from tracer.importers.claude_code.dag import _look
    from tracer.importers.claude_code.record_kinds import message_id, tool_result_ids, tool_use_ids

    records = [r for _, r in read_jsonl(source, ImportReport(source=str(source)))]
    mirrored = [r["data"].get("message") for r in records if isinstance(r.get("data"), dict)]
    odd = [
        {"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "id": 7}]}},
        {"type": "user", "message": {"id": "m", "content": ["x", {"type": "tool_result"}]}},
        {"type": "assistant", "message": "not a dict"},
    ]
    found = 0
    for rec in [*records, *(m for m in mirrored if isinstance(m, dict)), *odd]:
        mid, uses, answers = _look(rec)
        assert (mid, uses, answers) == (message_id(rec), tool_use_ids(rec), tool_result_ids(rec))
        found += len(uses) + len(answers) + (mid is not None)
    assert found > 0


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


def _left_out_reference(records: list[tuple[int, dict]]) -> dict[tuple[Any, Any], int]:
    """The census's left-out counts as first written: one record at a time, first seen first."""
    from tracer.importers.claude_code.census import CONVERSATION

    counts: dict[tuple[Any, Any], int] = {}
    for _, rec in records:
        kind, sub, data = rec.get("type"), rec.get("subtype"), rec.get("data")
        if kind in CONVERSATION:
            continue  # read (or, without a uuid, passed over): not left out
        if sub == "compact_boundary" and rec.get("parentUuid") is None:
            continue
        data_kind = data.get("type") if isinstance(data, dict) else None
        key = kind, sub or (data_kind if isinstance(data_kind, str) else None)
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("seed", range(20))
def test_the_census_counts_interleaved_runs_of_left_out_records_first_seen_first(seed: int) -> None:
    from tracer.importers.claude_code.census import take_census

    rng = random.Random(seed)
    kinds = [
        {"type": "progress", "data": {"type": "hook_progress"}},
        {"type": "progress", "data": {"type": "bash_progress"}},
        {"type": "progress", "data": {"type": 3}},
        {"type": "system", "subtype": "api_error"},
        {"type": "system", "subtype": "compact_boundary", "parentUuid": "p"},
        {"type": "system", "subtype": "compact_boundary", "parentUuid": None},
        {"type": "file-history-snapshot"},
        {"type": "user", "message": {"content": "hi"}},
    ]
    records = [
        (n, {**rng.choice(kinds), "uuid": f"u{n}"} if rng.random() < 0.9 else {**kinds[0]})
        for n in range(1, rng.randrange(1, 60))
    ]
    counts = take_census(records).left_out
    reference = _left_out_reference(records)
    assert list(counts.items()) == list(reference.items())


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_census_counts_what_a_record_by_record_count_gives(source: Path) -> None:
    from tracer.importers.claude_code.census import take_census

    records = read_jsonl(source, ImportReport(source=str(source)))
    counts = take_census(records, ImportReport(source=str(source))).left_out
    assert list(counts.items()) == list(_left_out_reference(records).items())


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_a_subagent_runs_tool_calls_are_the_blocks_tool_use_ids_finds(source: Path) -> None:
    from tracer.importers.claude_code.record_kinds import tool_use_ids
    from tracer.importers.claude_code.subagents import conversation_stats

    records = [r for _, r in read_jsonl(source, ImportReport(source=str(source)))]
    odd = [
        {"type": "user", "message": {"content": [{"type": "tool_use", "id": 7}, "x", 3]}},
        {"type": "assistant", "message": {"id": "m", "content": "text"}},
        {"type": "progress", "message": "not a dict"},
    ]
    for run in (records, odd, [*records, *odd]):
        stats = conversation_stats(run)
        assert stats["tool_calls"] == sum(len(tool_use_ids(r)) for r in run)
        assert stats["records"] == len(run)


def test_a_stamp_reads_as_the_z_spelled_plus_zero_read_it() -> None:
    # epoch_of lets Python 3.11 read the "Z" of UTC itself; every stamp, well formed or odd,
    # must still read as it did when "Z" was spelled "+00:00" first.
    from datetime import datetime

    from tracer.importers.output import epoch_of

    def spelled(stamp: str) -> float | None:
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None

    stamps = [
        "2025-06-01T12:34:56.789Z",
        "2025-06-01T12:34:56Z",
        "2025-06-01T12:34:56.1234567Z",
        "2025-06-01T12:34:56.789+02:00",
        "2025-06-01T12:34:56,5Z",
        "20250601T123456Z",
        "2025-06-01Z",  # a date alone with a "Z": only the spelled form reads it
        "2025-06-01T12:34:56.789ZZ",
        "2025-06-01T12:34:56.789z",
        "2025-06-01T24:00:00Z",
        "Z",
        "",
        "not a time",
    ]
    for stamp in stamps:
        assert epoch_of(stamp) == spelled(stamp), stamp
    assert epoch_of("2025-06-01Z") is not None


def test_the_clock_dates_a_moment_as_logged_and_gives_its_epoch() -> None:
    # StepWriter.at reads the source's own time (ISO text or seconds) and keeps the moment
    # dated last: dating it again (a result's message, after its steps) changes nothing.
    from tracer.importers.builder import TraceBuilder

    b = TraceBuilder(lambda event: event)
    assert b.at(None) is None and b.t == 0.0  # undated: nothing starts the clock
    start = "2025-01-01T00:00:00.000Z"
    assert b.at(start) == 1735689600.0 and b.t == 0.0
    later = "2025-01-01T00:00:01.5Z"
    assert b.at(later) == 1735689601.5 and b.t == 1.5
    assert b.at(later) == 1735689601.5 and b.t == 1.5  # the same moment again
    assert b.at(start) == 1735689600.0 and b.t == 1.5  # earlier: t never runs back
    assert b.at("not a time") is None and b.t == 1.5
    assert b.at(1735689603.25) == 1735689603.25 and b.t == 3.25  # seconds, as an API log has


def test_the_clock_skips_rounding_only_where_it_could_not_move_on() -> None:
    # StepWriter.at rounds a moment only when it is later than any seen: t must still be the
    # plain rule, the largest rounded offset so far, through a nested loop and back.
    from tracer.importers.builder import TraceBuilder

    rng = random.Random(7)
    epochs = [1.7e9 + rng.choice([0.0, 0.0004, 0.0005, 0.0015]) + rng.randrange(0, 90) / 7]
    epochs += [epochs[-1], *(1.7e9 + rng.randrange(0, 9000) / 1000 for _ in range(300))]
    outer = TraceBuilder(lambda event: event)
    builder, inner, expected = outer, None, 0.0
    for k, epoch in enumerate(epochs):
        if k == 100:
            builder = inner = outer.nested()
        builder.at(epoch)
        if k == 200 and inner is not None:
            outer.adopt(inner)
            builder = outer
        expected = max(expected, round(epoch - epochs[0], 3))
        assert builder.t == expected, k


def test_each_agent_file_is_parsed_once_for_its_link_and_its_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subagent's file is read once: its run is counted and its nested loop analysed from the
    same records (it was parsed twice), and the import is the one a fresh read gives."""
    from tracer.importers.claude_code import agent_files

    session = DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
    first, second = EventList(), EventList()
    emit_transcript(load_transcript(session), first)
    opened: list[str] = []
    plain = agent_files.read_jsonl

    def counted(path: Any, report: Any, shape: Any = None) -> Any:
        opened.append(Path(path).name)
        return plain(path, report, shape)

    monkeypatch.setattr(agent_files, "read_jsonl", counted)
    monkeypatch.setattr(claude_code, "read_jsonl", counted)
    t = load_transcript(session)
    assert opened == [session.name, "agent-b1d2e3f4.jsonl"]
    assert "agent-b1d2e3f4.jsonl" in " ".join(c.path for c in t.children.values())
    emit_transcript(t, second)
    assert [e.to_dict() for e in second.events] == [e.to_dict() for e in first.events]
    assert any(e.kind == "subagent_start" for e in second.events)
