"""The body hasher encodes a message again only when it changed, nested loops or not.

After a nested loop (a subagent) the trace says the next request shares nothing with the last
one, so readers that do not know nesting can still rebuild it; the hasher still holds the
states of the loop's own history and must not encode it all again. The hashes themselves are
checked against full bodies in :mod:`tests.test_import_speedups_cache`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.importers import body_hash
from tracer.importers.claude_code.importer import load_transcript
from tracer.importers.claude_code.journey import emit_transcript
from tracer.trace.writer import EventList

DATA = Path(__file__).parent / "data" / "claude-code"


@pytest.mark.parametrize(
    "name", ["v1.0-task-retried-same-prompt.jsonl", "v2.1-subagent-only-in-progress-records.jsonl"]
)
def test_a_request_after_a_nested_loop_encodes_only_what_changed(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain_dumps, plain_digest = body_hash._dumps, body_hash.BodyHasher.digest
    encoded: list[Any] = []
    last: dict[tuple[int, int], Any] = {}  # (hasher, position) -> the message encoded there
    again: list[int] = []
    after_nested = 0

    def counting(value: Any) -> bytes:
        if isinstance(value, dict) and "role" in value:  # a message, not the body's frame
            encoded.append(value)
        return plain_dumps(value)

    def digest(
        self: body_hash.BodyHasher, params: Any, keys: Any, api: Any, prefix: int, by_uuid: Any
    ) -> Any:
        nonlocal after_nested
        if prefix == 0 and len(api) > 1 and (id(self), 0) in last:
            after_nested += 1
        encoded.clear()
        out = plain_digest(self, params, keys, api, prefix, by_uuid)
        for k in range(len(api) - len(encoded), len(api)):
            here = (api[k].role, list(api[k].parts))
            if last.get((id(self), k)) == here:
                again.append(k)
            last[(id(self), k)] = here
        return out

    monkeypatch.setattr(body_hash, "_dumps", counting)
    monkeypatch.setattr(body_hash.BodyHasher, "digest", digest)
    emit_transcript(load_transcript(DATA / name), EventList())
    assert after_nested > 0  # the case in question happened
    assert again == []
