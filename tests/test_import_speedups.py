"""The importer's shortcuts give exactly what the plain computation gives.

An import normalizes the history and hashes the request body before every call. To stay fast on
long sessions it reuses the previous call's work (:mod:`tracer.importers.normal_cache`,
:mod:`tracer.importers.body_hash`); these tests check, on every call of every transcript we
have, that the shortcut and the full computation agree.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tracer.agent.messages import materialize, normalize_messages_for_api
from tracer.importers import normal_cache
from tracer.importers.claude_code import emit_transcript, load_transcript
from tracer.paths import ROOT
from tracer.trace.requests import encode_body, rebuild_requests
from tracer.trace.writer import EventList

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
    by_uuid = {
        e.uuid: {"type": e.type, "content": e.content, "attachment": e.attachment}
        for e in sink.events
        if e.kind == "message"
    }
    for request in rebuild_requests(sink.events):
        body = encode_body(
            {"model": request.body["model"], "messages": materialize(request.api_messages, by_uuid)}
        )
        assert (len(body), hashlib.sha256(body).hexdigest()) == (
            request.event.bytes,
            request.event.sha256,
        )
