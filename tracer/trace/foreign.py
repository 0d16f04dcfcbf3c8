"""Recognise the logs tracer can import, so "not a tracer trace" can say what to run instead.

People try the obvious thing first: ``tracer replay ~/.claude/projects/…/<session>.jsonl``. That
file is JSON lines too, but a Claude Code transcript, not a trace; so is a claude-trace API log.
The reader looks at the first line it already parsed and, when it has the shape of one of them,
its error names the import command. Only the first line is looked at: enough to tell the three
apart (a transcript's records carry ``type`` and ``sessionId``/``parentUuid`` or start with a
``summary`` or ``file-history-snapshot`` record, Claude Code's own bookkeeping; an API log's
records are ``{request, response}`` pairs), and cheap for a file of any size.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: First-record types a Claude Code transcript (``~/.claude/projects/<project>/<id>.jsonl``) has.
TRANSCRIPT_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "custom-title",
        "ai-title",
        "queue-operation",
    }
)


def looks_like(record: Any) -> str | None:
    """``"claude-code"``, ``"api-log"`` or ``None``: which importer reads a file starting so."""
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("request"), dict) and "response" in record:
        return "api-log"
    kind = record.get("type")
    if kind in TRANSCRIPT_TYPES and (
        kind in ("summary", "file-history-snapshot")
        or "sessionId" in record
        or "parentUuid" in record
    ):
        return "claude-code"
    return None


def import_hint(record: Any, path: str) -> str:
    """The words to add to "not a tracer trace" for a file starting with ``record`` (or "")."""
    found = looks_like(record)
    if found == "claude-code":
        return f"; it looks like a Claude Code transcript: run `tracer import claude-code {path}`"
    if found == "api-log":
        return f"; it looks like an API log: run `tracer import api-log {path}`"
    return ""
