"""The importer's one-pass looks at a record say what the record-by-record helpers say.

The quick shape check against the field-by-field one (on every record of every transcript, and on
each record spoiled one field at a time), the count check's and the active path's single look at
a message's blocks, a subagent run's tool-call count, and the census of records left out: each is
compared with the plain helper it replaced.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from import_helpers import SOURCES

from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport


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
