"""What an import reuses from call to call gives exactly what the plain computation gives.

An import normalizes the history and hashes the request body before every call; to stay fast on
long sessions it builds on the previous call's work (:mod:`tracer.importers.normal_cache`,
:mod:`tracer.importers.body_hash`). On every call of every transcript we have, the cached
normalization and hash must equal the full ones. A subagent's file is parsed once for both its
link and its loop, and the import runs with the cycle collector paused, always giving it back.
"""

from __future__ import annotations

import gc
import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from import_helpers import DATA, SOURCES

from tracer.errors import UserError
from tracer.importers import normal_cache
from tracer.importers.claude_code import importer as claude_code
from tracer.importers.claude_code.importer import load_transcript
from tracer.importers.claude_code.journey import emit_transcript
from tracer.importers.output import collector_paused
from tracer.model.api_messages import materialize, normalize_messages_for_api
from tracer.trace.requests import encode_body, rebuild_requests
from tracer.trace.writer import EventList


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
