"""Where a session's subagent transcripts are, and reading them loosely.

Claude Code 2.0 keeps ``agent-<id>.jsonl`` beside the session file (every session's agents in one
folder, told apart by ``sessionId``); since 2.1 they are in ``<session>/subagents/``, where newer
versions add ``agent-<id>.meta.json`` naming the ``tool_use`` that started each. A subagent file
is a side file: one that cannot be read leaves the link less precise, never the import broken.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.files.untrusted import MAX_LINE, loads, open_regular, read_bytes, read_text
from tracer.importers.jsonl import Record


def agent_folders(session: Path) -> list[Path]:
    """Where a session's subagent files can be: ``<session>/subagents/`` (2.1) or beside the
    session file itself (2.0)."""
    return [session.parent / session.stem / "subagents", session.parent]


def session_agent_files(session: Path, session_id: str | None) -> list[Path]:
    """Every agent file of a session: all of ``<session>/subagents/``, and the ``agent-*.jsonl``
    beside the session (2.0) whose records carry the session's id."""
    own = session.parent / session.stem / "subagents"
    found = sorted(own.glob("agent-*.jsonl")) if own.is_dir() else []
    # Beside the session (2.0) every session's agents lie together: an agent file is this
    # session's when it carries the session's id, which is also the session file's name.
    if session_id and session.stem == session_id:
        for file in sorted(session.parent.glob("agent-*.jsonl")):
            first = next(iter(read_loose(file, limit=1)), {})
            if first.get("sessionId") == session_id:
                found.append(file)
    return found


def read_records(file: Path) -> list[Record]:
    """Every JSON object of a file with its line number; unreadable lines left out."""
    try:
        data = read_bytes(file, "a subagent transcript")
    except UserError:
        return []
    out: list[Record] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            obj = loads(raw, file, number)
        except UserError:
            continue
        if isinstance(obj, dict):
            out.append((number, obj))
    return out


def find_agent_file(session: Path, agent_id: str) -> Path | None:
    for folder in agent_folders(session):
        file = folder / f"agent-{agent_id}.jsonl"
        if file.is_file():
            return file
    return None


def meta_links(folder: Path) -> dict[str, str]:
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
            out[str(data["toolUseId"])] = meta.name[len("agent-") : -len(".meta.json")]
    return out


def read_loose(file: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The objects of a file (unreadable: nothing; the link then says it holds nothing)."""
    if limit is not None:
        try:
            with os.fdopen(open_regular(file, "a subagent transcript"), "rb") as fh:
                lines = [fh.readline(MAX_LINE) for _ in range(limit)]
        except (OSError, UserError):
            return []
        out = []
        for number, raw in enumerate(lines, start=1):
            try:
                obj = loads(raw, file, number) if raw.strip() else None
            except UserError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
        return out
    return [rec for _, rec in read_records(file)]
