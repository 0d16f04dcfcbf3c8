"""Linking subagent (sidechain) activity to the ``Task``/``Agent`` call that started it.

A subagent is a whole second agent loop run *inside* one tool call of the main loop. Its messages
never enter the main history; only the tool's final result does. Claude Code has stored them in
three ways over time, and all three are followed here:

* before v2.1, **inline**: records with ``isSidechain: true`` in the session file itself, each
  subagent conversation starting at its own root (``parentUuid: null``) whose text is the Task's
  ``prompt``;
* since v2.1, a **file** ``<session>/subagents/agent-<agentId>.jsonl``, found through the Task
  result's ``toolUseResult.agentId`` (newer versions add ``agent-<id>.meta.json`` with the
  ``toolUseId``);
* while it runs, ``progress`` records (``data.type: agent_progress``) in the parent, whose
  ``parentToolUseID`` is the Task's ``tool_use`` id.

The main loop skips all of it; the import notes on the Task call how much ran underneath.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.importers.dag import tool_use_ids
from tracer.importers.jsonl import Record
from tracer.untrusted import loads, read_bytes, read_text

AGENT_TOOLS = ("Task", "Agent")


def _text_of(rec: dict[str, Any]) -> str:
    content = (rec.get("message") or {}).get("content")
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text", "")).strip()
    return ""


def conversation_stats(records: list[dict[str, Any]]) -> dict[str, int]:
    """How big a subagent run was: records, model responses, tool calls."""
    ids = {(r.get("message") or {}).get("id") for r in records if r.get("type") == "assistant"}
    return {"records": len(records), "responses": len(ids - {None}),
            "tool_calls": sum(len(tool_use_ids(r)) for r in records)}


def _inline_conversations(sidechain: list[Record]) -> list[list[dict[str, Any]]]:
    """Split interleaved sidechain records into one list per subagent run (by root)."""
    root_of: dict[str, str] = {}
    convs: dict[str, list[dict[str, Any]]] = {}
    for _, rec in sidechain:
        uid, parent = rec["uuid"], rec.get("parentUuid")
        root = uid if parent is None else root_of.get(str(parent))
        if root is None:
            continue
        root_of[uid] = root
        convs.setdefault(root, []).append(rec)
    return list(convs.values())


def link_subagents(records: list[Record], sidechain: list[Record], path: Path,
                   calls: dict[str, tuple[str, Any]],
                   results: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Links per ``tool_use`` id: ``{source, agent_id?, records, responses, tool_calls, file?}``.

    ``calls`` maps tool_use ids of the main loop to ``(name, input)``; ``results`` maps them to
    their ``toolUseResult``.
    """
    links: dict[str, list[dict[str, Any]]] = defaultdict(list)
    agent_calls = [tid for tid, (name, _) in calls.items() if name in AGENT_TOOLS]

    unmatched = list(agent_calls)
    for conv in _inline_conversations(sidechain):
        prompt = _text_of(conv[0])
        tid = next((t for t in unmatched
                    if str((calls[t][1] or {}).get("prompt", "")).strip() == prompt), None)
        if tid is None and unmatched:
            tid = unmatched[0]  # same order as the calls, when the prompt was rewritten
        if tid is None:
            continue
        unmatched.remove(tid)
        links[tid].append({"source": "inline", "agent_id": conv[0].get("agentId"),
                           **conversation_stats(conv)})

    progress: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, rec in records:
        data = rec.get("data")
        if rec.get("type") == "progress" and isinstance(data, dict) \
                and data.get("type") == "agent_progress":
            progress[str(rec.get("parentToolUseID"))].append(data)
    for tid, items in progress.items():
        if tid in calls:
            links[tid].append({"source": "progress", "agent_id": items[0].get("agentId"),
                               "records": len(items)})

    folder = path.parent / path.stem / "subagents"
    by_meta = _meta_links(folder)
    for tid in agent_calls:
        result = results.get(tid)
        agent_id = result.get("agentId") if isinstance(result, dict) else None
        agent_id = agent_id or by_meta.get(tid)
        if not agent_id:
            continue
        file = folder / f"agent-{agent_id}.jsonl"
        link: dict[str, Any] = {"source": "file", "agent_id": str(agent_id), "file": str(file)}
        if file.is_file():
            link.update(conversation_stats(_read_loose(file)))
        else:
            link["missing"] = True
        links[tid].append(link)
    return dict(links)


def _meta_links(folder: Path) -> dict[str, str]:
    """``toolUseId`` → agent id from ``agent-<id>.meta.json`` files, when present."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for meta in folder.glob("agent-*.meta.json"):
        try:
            data = loads(read_text(meta, "a subagent's meta file", 1 << 20), meta)
        except UserError:
            continue  # a side file: without it the link is only less precise
        if isinstance(data, dict) and data.get("toolUseId"):
            out[str(data["toolUseId"])] = meta.name[len("agent-"):-len(".meta.json")]
    return out


def _read_loose(file: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        data = read_bytes(file, "a subagent transcript")
    except UserError:
        return out  # unreadable: the link says how much it holds, here nothing
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            obj = loads(raw, file, number)
        except UserError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def describe(link: dict[str, Any]) -> str:
    """One line for the note: where the subagent's activity is and how much of it there was."""
    who = f"subagent {link['agent_id']}" if link.get("agent_id") else "subagent"
    if link["source"] == "progress":
        return f"{who}: {link['records']} agent_progress records mirrored into this session"
    if link.get("missing"):
        return f"{who}: its transcript {link['file']} is not next to this session"
    where = "inline sidechain" if link["source"] == "inline" else link["file"]
    return (f"{who} ({where}): {link['responses']} model responses, {link['tool_calls']} tool "
            f"calls, {link['records']} records, not part of the main loop")
