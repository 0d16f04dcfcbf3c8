"""Conversation order: file order, except that no record comes before its parent or the
``tool_use`` it answers (under streaming tool execution Claude Code can write a result's line
before the assistant record it answers; file order would pair the result with the turn before).
"""

from __future__ import annotations

from tracer.importers.jsonl import Record

Kept = tuple[Record, list[str], list[str]]
"""A record to place, with the ``tool_use`` ids it holds and those it answers: read once, by
:mod:`tracer.importers.claude_code.dag`, which looked at them already to decide what to keep."""


def in_conversation_order(keep: list[Kept]) -> list[Record]:
    """File order, except that no record comes before its parent or the tool_use it answers.

    Streaming tool execution can write a result's line before the assistant record it answers;
    file order would then pair the result with the turn before.
    """
    # Records kept but not placed yet: only these can hold a record back. (Records come
    # cleaned and kept records are messages or boundaries: each has a string ``uuid``, and a
    # ``parentUuid`` is a string or ``None``, so it can be looked up as it is.)
    pending = {rec["uuid"] for (_, rec), _, _ in keep}
    holder: dict[str, str] = {}
    for (_, rec), uses, _ in keep:
        for tid in uses:
            holder.setdefault(tid, rec["uuid"])
    waiting: dict[str, list[Kept]] = {}
    out: list[Record] = []

    for entry in keep:
        stack = [entry]
        while stack:
            current = stack.pop()
            (_, rec), _, answers = current
            uid = rec["uuid"]
            # What it must wait for: its parent, then the record of each tool_use it answers.
            need = rec.get("parentUuid")
            if need not in pending or need == uid:
                need = None
                for tid in answers:
                    held_by = holder.get(tid)
                    if held_by in pending and held_by != uid:
                        need = held_by
                        break
            if need is not None:
                waiting.setdefault(need, []).append(current)
                continue
            out.append(current[0])
            pending.discard(uid)
            if waiting and uid in waiting:
                stack.extend(reversed(waiting.pop(uid)))
    # Anything still waiting hangs on a cycle or on itself: keep it, in file order.
    rest = sorted((e[0] for entries in waiting.values() for e in entries), key=lambda r: r[0])
    return out + rest
