"""Claude Code transcript records as internal messages, grouped by model call.

Claude Code writes one record per *internal* message: a streamed response becomes one
``assistant`` record per content block (all sharing ``message.id``), each tool result its own
``user`` record with the tool's raw output beside it (``toolUseResult``). This module turns the
records :mod:`~tracer.importers.dag` kept into :class:`~tracer.messages.Message` objects and
groups them: each ``message.id`` is one model call (:class:`Response`), and everything after it
until the next call (tool results, interruptions, new prompts, compaction boundaries) is what
that call led to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport
from tracer.messages import Message

INTERRUPTED = "[Request interrupted by user"


@dataclass
class Boundary:
    """A ``compact_boundary``: the history before it was replaced by a summary."""

    data: dict[str, Any]


@dataclass
class Response:
    """One model call: its assistant fragments and what followed until the next call."""

    message_id: str
    messages: list[Message] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    after: list[Message | Boundary] = field(default_factory=list)


def to_message(rec: dict[str, Any]) -> Message:
    kind = rec["type"]
    msg = rec.get("message") or {}
    stamp = str(rec.get("timestamp") or "")
    if kind == "attachment":
        attachment = rec.get("attachment")
        return Message(type="attachment", uuid=rec["uuid"], origin="attachment", timestamp=stamp,
                       attachment=attachment if isinstance(attachment, dict) else {})
    content = msg.get("content")
    if kind == "assistant":
        synthetic = msg.get("model") == "<synthetic>" or rec.get("isApiErrorMessage")
        # A whitespace-only text fragment ("\n\n" before thinking) stays in the internal list
        # but is never sent: the API rejects it and Claude Code filters it out when normalizing
        # (filterWhitespaceOnlyAssistantMessages). The loop's normalizer skips only "synthetic".
        synthetic = synthetic or _blank_text(content)
        return Message(type="assistant", uuid=rec["uuid"], content=content,
                       message_id=msg.get("id"), timestamp=stamp,
                       origin="synthetic" if synthetic else "response")
    blocks = content if isinstance(content, list) else []
    text = content if isinstance(content, str) else next(
        (str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"),
        "")
    origin = "prompt"
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        origin = "tool_result"
    elif rec.get("isCompactSummary") or text.startswith(INTERRUPTED):
        origin = "synthetic"
    return Message(type="user", uuid=rec["uuid"], content=content, is_meta=bool(rec.get("isMeta")),
                   origin=origin, tool_use_result=rec.get("toolUseResult"),
                   source_tool_assistant_uuid=rec.get("sourceToolAssistantUUID"), timestamp=stamp)


def _blank_text(content: Any) -> bool:
    return (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
            and content[0].get("type") == "text" and not str(content[0].get("text", "")).strip())


def skip_label(rec: dict[str, Any]) -> str:
    kind = str(rec.get("type", "untyped"))
    data = rec.get("data")
    sub = rec.get("subtype") or (data.get("type") if isinstance(data, dict) else None)
    return f"{kind}/{sub} records" if sub else f"{kind} records"


def group_calls(active: list[Record], report: ImportReport) -> tuple[list[Message | Boundary],
                                                                   list[Response]]:
    """Assistant fragments grouped by ``message.id``; other messages follow the call before."""
    before: list[Message | Boundary] = []
    responses: list[Response] = []
    by_id: dict[str, Response] = {}
    seen: set[str] = set()
    for _, rec in active:
        if rec.get("type") == "system":
            item: Message | Boundary = Boundary({
                "trigger": (rec.get("compactMetadata") or {}).get("trigger"),
                "pre_tokens": (rec.get("compactMetadata") or {}).get("preTokens"),
                "logical_parent_uuid": rec.get("logicalParentUuid")})
        else:
            if rec["uuid"] in seen:
                report.skip("duplicate records (same uuid)")
                continue
            seen.add(rec["uuid"])
            item = to_message(rec)
        if isinstance(item, Message) and item.type == "assistant" and item.message_id \
                and (rec.get("message") or {}).get("model") != "<synthetic>":
            resp = by_id.get(item.message_id)
            if resp is None:
                resp = by_id[item.message_id] = Response(item.message_id)
                responses.append(resp)
            resp.messages.append(item)
            resp.records.append(rec)
        elif responses:
            responses[-1].after.append(item)
        else:
            before.append(item)
    return before, responses


def split_at_compactions(items: list[Message | Boundary]
                         ) -> list[tuple[Boundary | None, list[Message]]]:
    """Split at compaction boundaries: ``[(None, first), (boundary, after it), ...]``."""
    out: list[tuple[Boundary | None, list[Message]]] = [(None, [])]
    for item in items:
        if isinstance(item, Boundary):
            out.append((item, []))
        else:
            out[-1][1].append(item)
    return out

