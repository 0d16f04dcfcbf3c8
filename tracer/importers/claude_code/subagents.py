"""Linking subagent (sidechain) activity to the ``Task``/``Agent`` call that started it.

A subagent is a whole second agent loop run *inside* one tool call of the main loop. Its messages
never enter the main history; only the tool's final result does. Claude Code has stored them in
three ways over time, and all three are followed here:

* before v2.1, **inline**: records with ``isSidechain: true`` in the session file itself, each
  subagent conversation starting at its own root (``parentUuid: null``) whose text is the Task's
  ``prompt``;
* in v2.0, a **file** ``agent-<agentId>.jsonl`` beside the session file, and since v2.1 in
  ``<session>/subagents/``; either is found through the Task result's ``toolUseResult.agentId``
  (newer versions add ``agent-<id>.meta.json`` with the ``toolUseId``);
* while it runs, ``progress`` records (``data.type: agent_progress``) in the parent, whose
  ``parentToolUseID`` is the Task's ``tool_use`` id.

Each run found is imported as a nested loop of its own by
:mod:`tracer.importers.claude_code.importer` (from its file if there is one, else from the inline
records, else rebuilt from the ``agent_progress`` records, which 2.1 writes even when it keeps no
agent file); the links found here are also noted on the Task call.

Which call ran an inline run is decided by what the file says for sure first: the ``agentId`` of
the call's result, then **time** (a run starts after its call was asked for and before its
result came back), and only among those by the prompt text. The same prompt is often sent
twice (the first call interrupted); matching by prompt alone put the answered run inside the
interrupted call. A run inside no call's time (2.0's start-up "Warmup" sidechain) belongs to no
call: it is left out, with a note.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping

from tracer.files.pathnames import join, parent
from tracer.importers.claude_code.agent_files import (
    AgentRead,
    agent_folders,
    find_agent_file,
    meta_links,
)
from tracer.importers.claude_code.record_kinds import tool_result_ids, tool_use_ids
from tracer.importers.jsonl import Record
from tracer.importers.output import epoch_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name

AGENT_TOOLS = ("Task", "Agent")
RECORDS = "_records"
"""Key of a link holding the subagent's records (taken out before it is noted): an inline run's
own, or the ``agent_progress`` records that mirror a run (:func:`progress_records` rebuilds it)."""


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
    """How big a subagent run was: records, model responses, tool calls (the ``tool_use`` blocks
    :func:`tool_use_ids` finds), counted in one pass over the records.

    The blocks are counted here, not as ``len(tool_use_ids(r))``: that made a list of ids for
    every record, in three calls, and an inline run is hundreds of records."""
    ids: set[Any] = set()
    calls = 0
    for r in records:
        message = r.get("message")
        if r.get("type") == "assistant":
            ids.add((message or {}).get("id"))
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls += 1
    ids.discard(None)
    return {"records": len(records), "responses": len(ids), "tool_calls": calls}


def _inline_conversations(sidechain: list[Record]) -> list[list[Record]]:
    """Split interleaved sidechain records into one list per subagent run (by root). They are
    the census's, cleaned (a ``parentUuid`` is a string or None), and filed as it holds them."""
    root_of: dict[str, str] = {}
    convs: dict[str, list[Record]] = {}
    for item in sidechain:
        rec = item[1]
        uid, parent = rec["uuid"], rec.get("parentUuid")
        root = uid if parent is None else root_of.get(parent)
        if root is None:
            continue
        root_of[uid] = root
        convs.setdefault(root, []).append(item)
    return list(convs.values())


Window = tuple[float | None, float | None]
"""When a call was asked for and when its result was written (epochs; None when unknown)."""


def _pick_call(
    conv: list[dict[str, Any]],
    unmatched: list[str],
    calls: Mapping[str, tuple[Any, ...]],
    results: dict[str, Any],
    times: dict[str, Window],
) -> str | None:
    """The Task call that ran this inline run: by agentId, then by time, then by prompt."""
    agent = conv[0].get("agentId")
    if agent:
        for tid in unmatched:
            result = results.get(tid)
            if isinstance(result, dict) and result.get("agentId") == agent:
                return tid
    prompt = _text_of(conv[0])
    start = epoch_of(conv[0].get("timestamp"))
    timed = start is not None and any(times.get(t, (None, None))[0] is not None for t in unmatched)
    if timed:

        def inside(tid: str) -> bool:
            asked, done = times.get(tid, (None, None))
            # `timed` holds only when start is not None; mypy does not follow that through it
            return asked is not None and asked <= start and (done is None or start <= done)  # type: ignore[operator]

        candidates = [t for t in unmatched if inside(t)]
    else:
        candidates = list(unmatched)  # an undated file: the calls' order is all there is
    same = [t for t in candidates if str((calls[t][1] or {}).get("prompt", "")).strip() == prompt]
    if same:
        return same[0]
    return candidates[0] if candidates else None


def link_subagents(
    progress: dict[str, list[Record]],
    sidechain: list[Record],
    path: Name,
    calls: Mapping[str, tuple[Any, ...]],
    results: dict[str, Any],
    times: dict[str, Window] | None = None,
    report: Any = None,
    reads: dict[str, AgentRead] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Links per ``tool_use`` id: ``{source, agent_id?, records, responses, tool_calls, file?}``.

    ``progress`` holds the ``agent_progress`` records by the Task call they mirror (gathered by
    :mod:`tracer.importers.claude_code.census`); ``calls`` maps tool_use ids of the main loop to
    ``(name, input, ...)``; ``results`` maps them to their ``toolUseResult``; ``times`` to when each
    was asked for and answered (needed only when there are ``sidechain`` records). Each agent
    file read to count its run is kept in ``reads``, by its name, for the nested loop made from
    it (:class:`~tracer.importers.claude_code.agent_files.AgentRead`).
    """
    links: dict[str, list[dict[str, Any]]] = defaultdict(list)
    agent_calls = [tid for tid, call in calls.items() if call[0] in AGENT_TOOLS]
    times = times or {}

    unmatched = list(agent_calls)
    for conv_records in _inline_conversations(sidechain):
        conv = [rec for _, rec in conv_records]
        tid = _pick_call(conv, unmatched, calls, results, times)
        if tid is None:
            if report is not None:
                what = (
                    'a start-up "Warmup" sidechain (Claude Code 2.0 writes one as it starts)'
                    if _text_of(conv[0]) == "Warmup"
                    else "a sidechain run"
                )
                report.notes.append(
                    f"{path}:{conv_records[0][0]}: {what} that no Task call of this file ran: "
                    "left out, it is no part of any loop"
                )
            continue
        unmatched.remove(tid)
        links[tid].append(
            {
                "source": "inline",
                "agent_id": conv[0].get("agentId"),
                **conversation_stats(conv),
                RECORDS: conv_records,
            }
        )

    for tid, items in progress.items():
        if tid in calls:
            # Counted from the messages mirrored, which the rebuilt records hold unchanged. The
            # records are rebuilt (progress_records) only if the run is imported from them: most
            # runs mirrored here have their own file too, and that one is imported.
            mirrored = [msg for _, _, msg, _ in _mirrored(items)]
            links[tid].append(
                {
                    "source": "progress",
                    "agent_id": items[0][1]["data"].get("agentId"),
                    "records": len(items),
                    **{k: v for k, v in conversation_stats(mirrored).items() if k != "records"},
                    RECORDS: items,
                }
            )

    if not agent_calls:
        return dict(links)  # no Task call: no agent file to look for (a child run, mostly)
    folders = agent_folders(path)
    # The meta files are read only for a call whose result names no agent: most results do.
    by_meta: dict[str, str] | None = None
    for tid in agent_calls:
        result = results.get(tid)
        agent_id = result.get("agentId") if isinstance(result, dict) else None
        if not agent_id:
            if by_meta is None:
                by_meta = {}
                for folder in folders:
                    by_meta.update(meta_links(folder))
            agent_id = by_meta.get(tid)
        if not agent_id:
            continue
        file = find_agent_file(path, str(agent_id))
        link: dict[str, Any] = {"source": "file", "agent_id": str(agent_id)}
        if file is not None:
            link["file"] = file
            read = AgentRead(file)
            link.update(conversation_stats(read.objects()))
            if reads is not None:
                reads[file] = read
        else:
            link["file"] = join(folders[0], f"agent-{agent_id}.jsonl")
            link["looked_in"] = list(folders)
            link["missing"] = True
        links[tid].append(link)
    return dict(links)


def progress_records(items: list[Record]) -> list[Record]:
    """A subagent's own records, rebuilt from the ``agent_progress`` records that mirror them.

    Each progress record carries one message of the run (``data.message``: its type, uuid,
    timestamp and API message) but no parent link: the run is a chain in the order written,
    and a tool result hangs off the record holding its ``tool_use``, as 2.1 writes it.
    """
    out: list[Record] = []
    holder: dict[str, str] = {}
    prev: str | None = None
    for number, rec, msg, uid in _mirrored(items):
        own = {
            **msg,
            "uuid": uid,
            "isSidechain": True,
            "agentId": rec["data"].get("agentId"),
            "sessionId": rec.get("sessionId"),
            "version": rec.get("version"),
        }
        parent = prev
        for tid in tool_result_ids(own):
            parent = holder.get(tid, parent)
        own["parentUuid"] = parent
        for tid in tool_use_ids(own):
            holder[tid] = uid
        out.append((number, own))
        prev = uid
    return out


def _mirrored(items: list[Record]) -> Iterator[tuple[int, dict[str, Any], dict[str, Any], str]]:
    """Each message of the run that ``agent_progress`` records mirror, once (a message mirrored
    twice is read where it first appears): the line, the progress record, the message (a user
    or assistant message holding an API message) and its uuid."""
    seen: set[str] = set()
    for number, rec in items:
        msg = rec["data"].get("message")
        if (
            not isinstance(msg, dict)
            or msg.get("type") not in ("user", "assistant")
            or not isinstance(msg.get("message"), dict)
        ):
            continue
        uid = str(msg.get("uuid") or f"{rec.get('uuid')}:message")
        if uid in seen:
            continue  # mirrored twice
        seen.add(uid)
        yield number, rec, msg, uid


def describe(link: dict[str, Any]) -> str:
    """One line for the note: where the subagent's activity is and how much of it there was."""
    who = f"subagent {link['agent_id']}" if link.get("agent_id") else "subagent"
    if link["source"] == "progress":
        return (
            f"{who}: {link['records']} agent_progress records mirrored into this session "
            f"({link.get('responses', 0)} model responses, {link.get('tool_calls', 0)} tool calls)"
        )
    if link.get("missing"):
        where = " nor in ".join(link.get("looked_in") or [parent(link["file"])])
        return f"{who}: no agent-{link['agent_id']}.jsonl in {where}"
    where = "inline sidechain" if link["source"] == "inline" else link["file"]
    return (
        f"{who} ({where}): {link['responses']} model responses, {link['tool_calls']} tool "
        f"calls, {link['records']} records, not part of the main loop"
    )


__all__ = [
    "AGENT_TOOLS",
    "RECORDS",
    "describe",
    "link_subagents",
    "progress_records",
]
