"""Faults that cannot be scripted into the real Claude Code, played by resuming a damaged
transcript (``claude -p PROMPT --resume ID``).

A scenario scripts the model, not Claude Code: the loop faults tracer plants in its own loop (a
result dropped, its id changed, its id removed) have no place in 2.1.88's live loop. But
2.1.88 rebuilds the history from its transcript when a session is resumed, so a transcript of a
real run, damaged the way the fault damages the history, shows what it sends for such a history:
its recovery path (``src/utils/conversationRecovery.ts`` and the pairing repair in
``src/utils/messages.ts``), measured rather than read.

:func:`damaged` damages the records; :func:`plant` puts the transcript where ``--resume`` looks
for it: ``CLAUDE_CONFIG_DIR/projects/<the workspace path, every other character a dash>/ID.jsonl``,
with each record's ``cwd`` moved to the new workspace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: The damage each fault does to the transcript: what it removes or rewrites.
FAULTS = ("drop_result", "rewrite_id", "remove_id")


def project_folder(workspace: Path) -> str:
    """The name Claude Code gives a working folder's project (every character not a letter or
    a digit becomes ``-``)."""
    return re.sub(r"[^a-zA-Z0-9]", "-", str(workspace))


def _results(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if record.get("type") != "user" or not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def damaged(
    records: list[dict[str, Any]], fault: str, tool_use_id: str, new_id: str = ""
) -> list[dict[str, Any]]:
    """``records`` with the result for ``tool_use_id`` dropped (``drop_result``), its id
    changed to ``new_id`` (``rewrite_id``) or its id removed (``remove_id``)."""
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
    out = []
    found = False
    relinked: dict[str, Any] = {}  # a dropped record's uuid → its parent
    for record in records:
        parent = record.get("parentUuid")
        if parent in relinked:
            record = {**record, "parentUuid": relinked[parent]}
        mine = [b for b in _results(record) if b.get("tool_use_id") == tool_use_id]
        if not mine:
            out.append(record)
            continue
        found = True
        if fault == "drop_result":
            # The whole result record goes, as a result never written would: the record that
            # followed it hangs from its parent (parallel results are a chain in the order
            # they finished, so a gap would cut the sibling's result off too).
            relinked[str(record.get("uuid"))] = record.get("parentUuid")
            continue
        record = json.loads(json.dumps(record))
        for block in _results(record):
            if block.get("tool_use_id") != tool_use_id:
                continue
            if fault == "rewrite_id":
                block["tool_use_id"] = new_id
            else:
                del block["tool_use_id"]
        out.append(record)
    if not found:
        raise ValueError(f"no tool_result for {tool_use_id} in the transcript")
    return out


def session_id(records: list[dict[str, Any]]) -> str:
    return next(str(r["sessionId"]) for r in records if r.get("sessionId"))


def plant(config: Path, workspace: Path, records: list[dict[str, Any]]) -> str:
    """Write ``records`` where ``claude --resume`` finds them for ``workspace``; the session id."""
    ident = session_id(records)
    folder = config / "projects" / project_folder(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    moved = [{**r, "cwd": str(workspace)} if "cwd" in r else r for r in records]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in moved)
    (folder / f"{ident}.jsonl").write_text(text, encoding="utf-8")
    return ident
