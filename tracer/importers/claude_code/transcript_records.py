"""One Claude Code transcript record as an internal message, or as the label it is skipped under.

Claude Code writes one record per *internal* message: a streamed response becomes one
``assistant`` record per content block, each tool result a ``user`` record with the tool's raw
output beside it (``toolUseResult``), a hook's text an ``attachment`` record. :func:`to_message`
reads one such record back into a :class:`~tracer.model.internal_messages.Message`, with the
``origin`` the loop's normalizer goes by (a prompt, a tool result, a response, or a message Claude
Code wrote itself: an interruption notice, a compaction summary, an API-error notice);
:func:`api_error` tells a failed call's ``<synthetic>`` notice from a response. Records of the
kinds that hold no message are counted under :func:`skip_label`.

:mod:`tracer.importers.claude_code.transcript` groups the messages into model calls.
"""

from __future__ import annotations

from tracer.model.internal_messages import Message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INTERRUPTED = "[Request interrupted by user"


def api_error(rec: dict[str, Any]) -> str | None:
    """The error text of a ``<synthetic>`` API-error message, or ``None`` for anything else."""
    # Asked of every record kept: the flags first, the message only of a marked one.
    if rec.get("type") != "assistant" or not (rec.get("isApiErrorMessage") or rec.get("error")):
        return None
    content = (rec.get("message") or {}).get("content")
    text = (
        content
        if isinstance(content, str)
        else " ".join(
            str(b.get("text", ""))
            for b in content or []
            if isinstance(b, dict) and b.get("type") == "text"
        )
    )
    kind = rec.get("error")
    kind = (
        kind
        if isinstance(kind, str)
        else (kind or {}).get("type")
        if isinstance(kind, dict)
        else None
    )
    return ": ".join(x for x in (kind, " ".join(str(text).split())) if x) or "API error"


def to_message(rec: dict[str, Any]) -> Message:
    """A ``user``, ``assistant`` or ``attachment`` record as the internal message it was.
    Made with ``Message.new`` (keyword-only, without calling the class: one per record read,
    :func:`tracer.model.record_init.lean_source`)."""
    kind = rec["type"]
    msg = rec.get("message") or {}
    stamp = str(rec.get("timestamp") or "")
    if kind == "attachment":
        attachment = rec.get("attachment")
        return Message.new(
            type="attachment",
            uuid=rec["uuid"],
            origin="attachment",
            timestamp=stamp,
            attachment=attachment if isinstance(attachment, dict) else {},
        )
    content = msg.get("content")
    if kind == "assistant":
        synthetic = msg.get("model") == "<synthetic>" or rec.get("isApiErrorMessage")
        # A whitespace-only text fragment ("\n\n" before thinking) stays in the internal list
        # but is never sent: the API rejects it and Claude Code filters it out when normalizing
        # (filterWhitespaceOnlyAssistantMessages). The loop's normalizer skips only "synthetic".
        synthetic = synthetic or _blank_text(content)
        return Message.new(
            type="assistant",
            uuid=rec["uuid"],
            content=content,
            message_id=msg.get("id"),
            timestamp=stamp,
            origin="synthetic" if synthetic else "response",
        )
    # One pass over the blocks finds both what the origin depends on: a tool_result block, and
    # the first text block (for a string content, the text is the string itself).
    text = content if isinstance(content, str) else None
    origin = "prompt"
    for b in content if isinstance(content, list) else ():
        if isinstance(b, dict):
            block_type = b.get("type")
            if block_type == "tool_result":
                origin = "tool_result"
                break
            if block_type == "text" and text is None:
                text = str(b.get("text", ""))
    if origin == "prompt" and (rec.get("isCompactSummary") or (text or "").startswith(INTERRUPTED)):
        origin = "synthetic"
    return Message.new(
        type="user",
        uuid=rec["uuid"],
        content=content,
        is_meta=bool(rec.get("isMeta")),
        origin=origin,
        tool_use_result=rec.get("toolUseResult"),
        source_tool_assistant_uuid=rec.get("sourceToolAssistantUUID"),
        timestamp=stamp,
    )


def _blank_text(content: Any) -> bool:
    if not (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "text"
    ):
        return False
    # ``isspace`` stops at the first other character; ``strip`` would copy a long text first.
    text = str(content[0].get("text", ""))
    return not text or text.isspace()


#: Record kinds Claude Code writes that hold no part of the conversation the model saw. They are
#: left out on purpose; any other kind is new to us and is named as unknown.
IGNORED_KINDS = frozenset(
    {
        "system",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "summary",
        "custom-title",
        "ai-title",
        "agent-name",
        "permission-mode",
        "mode",
        "last-prompt",
        "pr-link",
        "bridge-session",
        "atis-latch",
        "tag",
        "away-summary",
        # Seen in real 2.1 sessions (listed in anthropics/claude-code#92735), by their names
        # metadata for Claude Code's own views. Not confirmed from the source: should one ever
        # carry a tool block, the count check (tracer.importers.claude_code.counts) names it.
        "frame-link",
        "agent-setting",
        "artifact-comment-monitor",
        "artifact-autoreact-ledger",
    }
)


def skip_label(kind: Any, sub: Any) -> str:
    """How the summary names records the importer does not read: by ``type`` and ``subtype``
    (or, for progress records, ``data.type``)."""
    kind = "untyped" if kind is None else str(kind)
    if kind not in IGNORED_KINDS:
        return f"records of an unknown kind '{kind}' (not read)"
    return f"{kind}/{sub} records" if sub else f"{kind} records"
