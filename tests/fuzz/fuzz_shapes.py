"""Transcripts of other shapes: every record valid JSON, but shaped as another Claude Code
version (or a hand edit) might write it.

The harness's other mutations damage bytes and single fields; these keep the JSON whole and
change the *shape* a reader of one version relies on: a ``content`` that is one block instead of
a list, a ``message`` that is a bare string, a tool result inside the AI's own message, a
``toolUseResult`` of every JSON type, timestamps as numbers or in other formats, two records
with one uuid, a ``parentUuid`` chain that loops, one message id split over records that do not
belong together. Each shape is a function of a seeded :class:`random.Random` and the file's
records, so a case reproduces from its seed and name; :data:`SHAPES` names them all.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

Records = list[dict[str, Any]]


def _messages(records: Records, role: str | None = None) -> list[int]:
    """Indexes of the records carrying a message dict (of ``role``, when given)."""
    return [
        i
        for i, r in enumerate(records)
        if isinstance(r.get("message"), dict) and (role is None or r["message"].get("role") == role)
    ]


def _a_message_record(rng: random.Random, records: Records) -> dict[str, Any] | None:
    """One record carrying a message dict, drawn at random (``None``: the file has none)."""
    found = _messages(records)
    return records[rng.choice(found)] if found else None


def _blocks(records: Records, kind: str) -> list[tuple[int, int]]:
    """(record, block) indexes of the content blocks of type ``kind``."""
    out = []
    for i in _messages(records):
        content = records[i]["message"].get("content")
        if isinstance(content, list):
            out += [
                (i, b)
                for b, block in enumerate(content)
                if isinstance(block, dict) and block.get("type") == kind
            ]
    return out


def _content_dict(rng: random.Random, records: Records) -> Records | None:
    """``content`` as one block (a dict) instead of a list of them."""
    record = _a_message_record(rng, records)
    if record is None:
        return None
    message = record["message"]
    content = message.get("content")
    if isinstance(content, list) and content:
        message["content"] = content[rng.randrange(len(content))]
    else:
        message["content"] = {"type": "text", "text": str(content)}
    return records


def _content_strings(rng: random.Random, records: Records) -> Records | None:
    """``content`` as a list of bare strings (no blocks)."""
    record = _a_message_record(rng, records)
    if record is None:
        return None
    message = record["message"]
    content = message.get("content")
    items = content if isinstance(content, list) else [content]
    message["content"] = [json.dumps(item)[:200] for item in items] or [""]
    return records


def _message_scalar(rng: random.Random, records: Records) -> Records | None:
    """``message`` as a bare string, its content list, or a number."""
    record = _a_message_record(rng, records)
    if record is None:
        return None
    content = record["message"].get("content")
    record["message"] = rng.choice(
        [content if isinstance(content, str) else json.dumps(content), content, 3, [], ""]
    )
    return records


def _move_block(kind: str, into: str) -> Callable[[random.Random, Records], Records | None]:
    """A block of ``kind`` moved (or copied) into a message of role ``into``."""

    def shape(rng: random.Random, records: Records) -> Records | None:
        found, targets = _blocks(records, kind), _messages(records, into)
        if not found or not targets:
            return None
        i, b = rng.choice(found)
        block = records[i]["message"]["content"][b]
        if rng.random() < 0.5:
            del records[i]["message"]["content"][b]
        target = records[rng.choice(targets)]["message"]
        content = target.get("content")
        content = content if isinstance(content, list) else [{"type": "text", "text": content}]
        content.insert(rng.randrange(len(content) + 1), copy.deepcopy(block))
        target["content"] = content
        return records

    return shape


_ANY_JSON: list[Any] = [
    "Error: no such file",
    "",
    0,
    -3,
    2.5,
    2**64,
    True,
    False,
    None,
    [],
    ["a", {"b": 1}],
    {},
    {"stdout": 5, "stderr": None, "interrupted": "no"},
    {"type": "text", "file": {"content": ["x"], "numLines": "3"}},
    {"content": [{"type": "text", "text": 7}], "totalDurationMs": "soon"},
]


def _tool_use_result(rng: random.Random, records: Records) -> Records | None:
    """``toolUseResult`` of any JSON type, on a record that answers a call or on any other."""
    found = [i for i, r in enumerate(records) if "toolUseResult" in r] or _messages(records)
    if not found:
        return None
    records[rng.choice(found)]["toolUseResult"] = copy.deepcopy(rng.choice(_ANY_JSON))
    return records


_TIMES: list[Any] = [
    1772359201000,
    1772359201,
    1772359201.5,
    -1,
    0,
    "2026-03-01 10:00:01",
    "2026-03-01T10:00:01",
    "2026-03-01T12:00:01+02:00",
    "2026-03-01T10:00:01.123456789Z",
    "Sun, 01 Mar 2026 10:00:01 GMT",
    "2026-13-45T99:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "0001-01-01T00:00:00Z",
    "",
    "yesterday",
    None,
    True,
    ["2026-03-01T10:00:01Z"],
]


def _timestamp(rng: random.Random, records: Records) -> Records | None:
    """Timestamps of another format (or type) on one record, or on every record."""
    if not records:
        return None
    value = rng.choice(_TIMES)
    chosen = records if rng.random() < 0.3 else [rng.choice(records)]
    for record in chosen:
        record["timestamp"] = value
    return records


def _backwards(rng: random.Random, records: Records) -> Records | None:
    """Timestamps that run backwards: the file's order and the clock's disagree."""
    stamps = [r.get("timestamp") for r in records]
    for record, stamp in zip(records, reversed(stamps), strict=True):
        record["timestamp"] = stamp
    return records


def _uuids(records: Records) -> list[int]:
    return [i for i, r in enumerate(records) if isinstance(r.get("uuid"), str)]


def _duplicate_uuid(rng: random.Random, records: Records) -> Records | None:
    """Two records with one uuid (a copied line edited, or two files concatenated)."""
    found = _uuids(records)
    if len(found) < 2:
        return None
    i, j = rng.sample(found, 2)
    records[j]["uuid"] = records[i]["uuid"]
    return records


def _parent_cycle(rng: random.Random, records: Records) -> Records | None:
    """A ``parentUuid`` that points at the record itself or at one after it: a loop."""
    found = _uuids(records)
    if not found:
        return None
    i = rng.choice(found)
    parent = records[i].get("parentUuid")
    later = [j for j in found if j >= i and records[j]["uuid"] != parent]  # i itself at least
    records[i]["parentUuid"] = records[rng.choice(later)]["uuid"]
    return records


def _parent_odd(rng: random.Random, records: Records) -> Records | None:
    """A ``parentUuid`` naming no record, or of another type."""
    found = _uuids(records)
    if not found:
        return None
    records[rng.choice(found)]["parentUuid"] = rng.choice(
        ["no-such-record", "", 7, ["us-main-001"], {"uuid": "x"}, True]
    )
    return records


def _split_message_id(rng: random.Random, records: Records) -> Records | None:
    """One API message id on assistant records that are not its parts."""
    found = _messages(records, "assistant")
    if len(found) < 2:
        return None
    i, j = rng.sample(found, 2)
    records[j]["message"]["id"] = records[i]["message"].get("id")
    return records


def _role_swap(rng: random.Random, records: Records) -> Records | None:
    """A record whose ``type`` and message ``role`` disagree, or of a type no version wrote."""
    record = _a_message_record(rng, records)
    if record is None:
        return None
    choice = rng.randrange(3)
    if choice == 0:
        record["type"] = "assistant" if record.get("type") == "user" else "user"
    elif choice == 1:
        record["message"]["role"] = rng.choice(["system", "tool", "", None])
    else:
        record["type"] = rng.choice(["progress", "attachment", "system", "summary", "x"])
    return records


SHAPES: dict[str, Callable[[random.Random, Records], Records | None]] = {
    "content-dict": _content_dict,
    "content-strings": _content_strings,
    "message-scalar": _message_scalar,
    "result-in-assistant": _move_block("tool_result", "assistant"),
    "call-in-user": _move_block("tool_use", "user"),
    "tool-use-result-any": _tool_use_result,
    "timestamp": _timestamp,
    "timestamps-backwards": _backwards,
    "duplicate-uuid": _duplicate_uuid,
    "parent-cycle": _parent_cycle,
    "parent-odd": _parent_odd,
    "split-message-id": _split_message_id,
    "role-swap": _role_swap,
}


def reshape(rng: random.Random, data: bytes, name: str | None = None) -> tuple[str, bytes]:
    """One transcript of another shape (``name``, or one to three drawn, joined by ``+``), with
    the shapes' names; the file unchanged when its lines are not all JSON objects or no shape
    finds a place."""
    names = [name] if name else rng.sample(sorted(SHAPES), rng.choice([1, 1, 2, 3]))
    try:
        records = [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return "+".join(names), data
    if not all(isinstance(r, dict) for r in records):
        return "+".join(names), data
    changed = False
    for each in names:
        shaped = SHAPES[each](rng, records)
        if shaped is not None:
            records, changed = shaped, True
    if not changed:
        return "+".join(names), data
    return "+".join(names), "".join(json.dumps(r) + "\n" for r in records).encode()
