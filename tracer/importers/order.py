"""Conversation order: file order, except that no record comes before its parent or the
``tool_use`` it answers (under streaming tool execution Claude Code can write a result's line
before the assistant record it answers; file order would pair the result with the turn before).
"""

from __future__ import annotations

from typing import Any

from tracer.importers.jsonl import Record
from tracer.importers.record_kinds import tool_result_ids, tool_use_ids


def in_conversation_order(keep: list[Record]) -> list[Record]:
    """File order, except that no record comes before its parent or the tool_use it answers.

    Streaming tool execution can write a result's line before the assistant record it answers;
    file order would then pair the result with the turn before.
    """
    kept = {rec["uuid"] for _, rec in keep if isinstance(rec.get("uuid"), str)}
    holder: dict[str, str] = {}
    for _, rec in keep:
        for tid in tool_use_ids(rec):
            holder.setdefault(tid, rec["uuid"])
    done: set[str] = set()
    waiting: dict[str, list[Record]] = {}
    out: list[Record] = []

    def blocker(rec: dict[str, Any]) -> str | None:
        """The first record ``rec`` must wait for: its parent, then each tool_use it answers."""
        uid = rec.get("uuid")
        need = rec.get("parentUuid")
        if isinstance(need, str) and need in kept and need not in done and need != uid:
            return need
        for tid in tool_result_ids(rec):
            need = holder.get(tid)
            if need is not None and need in kept and need not in done and need != uid:
                return need
        return None

    def place(item: Record) -> None:
        stack = [item]
        while stack:
            current = stack.pop()
            need = blocker(current[1])
            if need is not None:
                waiting.setdefault(need, []).append(current)
                continue
            out.append(current)
            uid = current[1].get("uuid")
            if isinstance(uid, str):
                done.add(uid)
                stack.extend(reversed(waiting.pop(uid, [])))

    for item in keep:
        place(item)
    # Anything still waiting hangs on a cycle or on itself: keep it, in file order.
    rest = sorted((r for items in waiting.values() for r in items), key=lambda r: r[0])
    return out + rest
