"""Where a session's subagent transcripts are, and reading them loosely.

Claude Code 2.0 keeps ``agent-<id>.jsonl`` beside the session file (every session's agents in one
folder, told apart by ``sessionId``); since 2.1 they are in ``<session>/subagents/``, where newer
versions add ``agent-<id>.meta.json`` naming the ``tool_use`` that started each. A subagent file
is a side file: one that cannot be read leaves the link less precise, never the import broken.
"""

from __future__ import annotations

import os

from tracer.errors import UserError
from tracer.files.pathnames import join, listed, name, parent, pathname, stem
from tracer.files.untrusted import (
    MAX_LINE,
    UTF8_BOM,
    loads,
    open_regular,
    read_bytes,
    read_text,
)
from tracer.importers.jsonl import Record, read_jsonl
from tracer.importers.output import ImportReport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name


def agent_folders(session: Name) -> list[str]:
    """Where a session's subagent files can be: ``<session>/subagents/`` (2.1) or beside the
    session file itself (2.0). (Names are plain strings, spelled as ``pathlib`` would:
    :mod:`tracer.files.pathnames`.)"""
    return [join(parent(session), stem(session), "subagents"), parent(session)]


def session_agent_files(session: Name, session_id: str | None) -> list[str]:
    """Every agent file of a session: all of ``<session>/subagents/``, and the ``agent-*.jsonl``
    beside the session (2.0) whose records carry the session's id."""
    own, beside = agent_folders(session)
    found = listed(own, "agent-", ".jsonl")
    # Beside the session (2.0) every session's agents lie together: an agent file is this
    # session's when it carries the session's id, which is also the session file's name.
    if session_id and stem(session) == session_id:
        for file in listed(beside, "agent-", ".jsonl"):
            first = next(iter(read_loose(file, limit=1)), {})
            if first.get("sessionId") == session_id:
                found.append(file)
    return found


def read_records(file: Name) -> list[Record]:
    """Every JSON object of a file with its line number; unreadable lines left out."""
    try:
        data = read_bytes(file, "a subagent transcript").removeprefix(UTF8_BOM)
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


class AgentRead:
    """An agent file read once, as :func:`~tracer.importers.claude_code.importer.load_transcript`
    reads a transcript (:func:`~tracer.importers.jsonl.read_jsonl`): its records and the report
    of what was unreadable in it, or the error that makes it no transcript. The subagent's link
    counts its run from these records, and its nested loop is analysed from the same ones: a
    subagent file was parsed twice (on a 3.4 MB session with three agent files, 2% of the
    import's instructions)."""

    def __init__(self, file: Name) -> None:
        self.file = pathname(file)
        self.report = ImportReport(source=self.file)
        self.error: UserError | None = None
        try:
            self.records = read_jsonl(self.file, self.report)
        except UserError as exc:
            self.records = []
            self.error = exc

    def objects(self) -> list[dict[str, Any]]:
        """The records as :func:`read_loose` gives them (an unreadable file: none)."""
        return [rec for _, rec in self.records]


def find_agent_file(session: Name, agent_id: str) -> str | None:
    for folder in agent_folders(session):
        file = join(folder, f"agent-{agent_id}.jsonl")
        if os.path.isfile(file):
            return file
    return None


def meta_links(folder: Name) -> dict[str, str]:
    """``toolUseId`` → agent id from ``agent-<id>.meta.json`` files, when present."""
    out: dict[str, str] = {}
    for meta in listed(folder, "agent-", ".meta.json"):
        try:
            data = loads(read_text(meta, "a subagent's meta file", 1 << 20), meta)
        except UserError:
            continue  # a side file: without it the link is only less precise
        if isinstance(data, dict) and data.get("toolUseId"):
            out[str(data["toolUseId"])] = name(meta)[len("agent-") : -len(".meta.json")]
    return out


def read_loose(file: Name, limit: int | None = None) -> list[dict[str, Any]]:
    """The objects of a file (unreadable: nothing; the link then says it holds nothing)."""
    if limit is not None:
        try:
            with os.fdopen(open_regular(file, "a subagent transcript"), "rb") as fh:
                lines = [fh.readline(MAX_LINE) for _ in range(limit)]
            if lines:
                lines[0] = lines[0].removeprefix(UTF8_BOM)
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
