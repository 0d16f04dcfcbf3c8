"""Which records of a Claude Code transcript were the conversation the model saw.

A transcript is not a list of requests. Every record points at its predecessor with
``parentUuid``; rewinding or editing a prompt starts a second child of the same parent, and
parallel tool calls make each ``tool_result`` hang off *its own* ``tool_use`` record (in v2.1 also
named by ``sourceToolAssistantUUID``), so the records form a tree. The conversation that reached
the model is the path from the last message back to the root, plus the tool results answering the
``tool_use`` blocks on that path.

Compaction starts a new root (``system``/``compact_boundary`` with ``parentUuid: null``); its
``logicalParentUuid`` points back at the last record before it, so the walk continues through it
when that record is in the file. Sidechain records (subagents, before v2.1 kept inline) are left
to :mod:`tracer.importers.subagents` unless the whole file is one subagent's own transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport

CONVERSATION = ("user", "assistant", "attachment")


@dataclass
class ActivePath:
    """The records to import, in file order, and what was set aside."""

    records: list[Record]
    sidechain: list[Record] = field(default_factory=list)
    subagent_file: bool = False
    """True when every message is a sidechain: the file is one subagent's transcript."""


def tool_result_ids(rec: dict[str, Any]) -> list[str]:
    content = (rec.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [str(b.get("tool_use_id")) for b in content
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_use_ids(rec: dict[str, Any]) -> list[str]:
    content = (rec.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [str(b.get("id")) for b in content
            if isinstance(b, dict) and b.get("type") == "tool_use"]


def _message_id(rec: dict[str, Any]) -> str | None:
    if rec.get("type") != "assistant":
        return None
    msg = rec.get("message")
    return msg.get("id") if isinstance(msg, dict) else None


def active_path(records: list[Record], report: ImportReport) -> ActivePath:
    """The main conversation's records (file order), following the DAG from its last message."""
    messages = [r for r in records if r[1].get("type") in CONVERSATION and r[1].get("uuid")]
    main = [r for r in messages if not r[1].get("isSidechain")]
    sidechain = [r for r in records if r[1].get("isSidechain") and r[1].get("uuid")]
    subagent_file = not main and bool(messages)
    if subagent_file:
        main, sidechain = messages, []
    if not main:
        return ActivePath([], sidechain, subagent_file)

    by_uuid: dict[str, dict[str, Any]] = {}
    for _, rec in records:
        uid = rec.get("uuid")
        if isinstance(uid, str):
            by_uuid.setdefault(uid, rec)
    on_path: set[str] = set()
    cur: dict[str, Any] | None = main[-1][1]
    while cur is not None and cur["uuid"] not in on_path:
        on_path.add(cur["uuid"])
        parent = cur.get("parentUuid")
        if parent is None and cur.get("subtype") == "compact_boundary":
            parent = cur.get("logicalParentUuid")
        cur = by_uuid.get(parent) if isinstance(parent, str) else None

    # Parallel tool_use blocks of one response can sit on side branches: a response is all the
    # records with its message.id, wherever they hang.
    responses = {_message_id(rec) for _, rec in main if rec["uuid"] in on_path} - {None}
    on_path |= {rec["uuid"] for _, rec in main if _message_id(rec) in responses}
    asked = {tid for _, rec in main if rec["uuid"] in on_path for tid in tool_use_ids(rec)}
    keep: list[Record] = []
    for number, rec in records:
        uid = rec.get("uuid")
        kind = rec.get("type")
        if kind == "system" and rec.get("subtype") == "compact_boundary" and uid in on_path:
            keep.append((number, rec))
        elif kind not in CONVERSATION or not uid or (rec.get("isSidechain")
                                                     and not subagent_file):
            continue
        elif uid in on_path or any(t in asked for t in tool_result_ids(rec)):
            keep.append((number, rec))
        else:
            report.skip("records off the active branch (rewound or edited)")
    return ActivePath(keep, sidechain, subagent_file)
