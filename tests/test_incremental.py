"""The incremental request builder gives exactly what building from scratch gives.

Random sessions (prompts, attachments, assistant fragments sharing an id, tool results, synthetic
API-error notices, a message replaced mid-list as an API log's moving cache markers do) grow one
message at a time; after each one the cache's normalized list, references, size and SHA-256 must
equal :func:`normalize_messages_for_api` and :func:`encode_body` on the whole list.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from tracer.importers.incremental import RequestCache
from tracer.messages import Message, materialize, normalize_messages_for_api
from tracer.trace.requests import encode_body


def _session(rng: random.Random, length: int) -> list[Message]:
    out: list[Message] = [Message(type="user", uuid="p0", content="start", origin="prompt")]
    response = 0
    pending: list[str] = []
    for n in range(1, length):
        uuid = f"m{n}"
        roll = rng.random()
        if roll < 0.15:
            out.append(
                Message(
                    type="attachment",
                    uuid=uuid,
                    attachment={"type": "note", "content": f"reminder {n}"},
                    origin="attachment",
                )
            )
        elif roll < 0.45:
            if rng.random() < 0.6:
                response += 1
            blocks: list[dict[str, Any]] = [{"type": "text", "text": rng.choice(["hi", " ", "ok"])}]
            if rng.random() < 0.5:
                pending.append(f"toolu_{n}")
                blocks = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {}}]
            synthetic = rng.random() < 0.05
            out.append(
                Message(
                    type="assistant",
                    uuid=uuid,
                    content=blocks,
                    message_id=f"msg_{response}",
                    origin="synthetic" if synthetic else "response",
                )
            )
        elif roll < 0.75 and pending:
            tid = pending.pop(0)
            block = {"type": "tool_result", "tool_use_id": tid, "content": f"result {n}"}
            out.append(Message(type="user", uuid=uuid, content=[block], origin="tool_result"))
        else:
            out.append(Message(type="user", uuid=uuid, content=f"say {n}", origin="prompt"))
    return out


def _scratch(messages: list[Message], params: dict[str, Any]) -> tuple[list[Any], bytes]:
    api = normalize_messages_for_api(messages)
    by_uuid = {m.uuid: m for m in messages}
    body = {"model": params["model"], "messages": materialize(api, by_uuid), "x": params["x"]}
    return [m.to_ref() for m in api], encode_body(body)


def _shared(a: list[Any], b: list[Any]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@pytest.mark.parametrize("seed", range(12))
def test_growing_sessions_match_building_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    session = _session(rng, 120)
    cache = RequestCache()
    by_uuid = {m.uuid: m for m in session}
    listed: list[Message] = []
    params = {"model": "m", "x": 1}
    previous: list[Any] = []
    for n, message in enumerate(session):
        if rng.random() < 0.5:
            listed.append(message)  # grown in place, as the builder does
        else:
            listed = [*listed, message]  # or a new list, as an API log's import does
        if n == 60 and seed % 3 == 0:
            # A message replaced early in a new list: the cache must notice and start over.
            listed = list(listed)
            old = listed[3]
            listed[3] = Message(
                type=old.type,
                uuid=old.uuid + "b",
                content=old.content or "x",
                attachment=old.attachment,
                message_id=old.message_id,
                origin=old.origin,
            )
            by_uuid[listed[3].uuid] = listed[3]
        if n == 90:
            params = {"model": "m", "x": 2}  # new parameters: nothing before messages is shared
        want_refs, want_body = _scratch(listed, params)
        if rng.random() < 0.3:
            assert cache.count(listed) == len(want_refs)
            assert [m.to_ref() for m in cache.normalize(listed)] == want_refs
            continue
        sent = cache.request(listed, by_uuid, params, ["model", "messages", "x"], whole=True)
        assert sent.count == len(want_refs)
        assert sent.prefix == _shared(want_refs, previous)
        assert sent.tail == want_refs[sent.prefix :]
        assert sent.body == want_body
        assert sent.size == len(want_body)
        assert sent.sha256 == hashlib.sha256(want_body).hexdigest()
        previous = want_refs
