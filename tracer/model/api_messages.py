"""What the API is sent: the internal list turned into a request's ``messages``.

Mirrors Claude Code's ``normalizeMessagesForAPI`` (``utils/messages.ts``), which ``claude.ts``
runs on the whole history before every request, since the API keeps no state between calls. The
internal list (:mod:`tracer.model.internal_messages`) holds one assistant message per content block
and one user message per tool result; the API wants turns. So :func:`normalize_messages_for_api`
merges same-id assistant pieces back into one message, merges consecutive user messages with
their ``tool_result`` blocks first, and turns attachments into ``<system-reminder>`` text.

An :class:`ApiMessage` does not copy its blocks: it remembers where each came from (``parts``:
``(uuid, index)`` pairs). So a trace can store a request by reference, and :func:`materialize`
rebuilds it byte for byte from the messages the trace already holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tracer.model.internal_messages import Message
from tracer.model.record_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

Part = tuple[str, int | None]
"""Where an API block came from: ``(message uuid, block index)``; index ``None`` = whole content."""


def attachment_blocks(attachment: dict[str, Any]) -> list[dict[str, Any]]:
    """What an attachment contributes to the request: ``<system-reminder>`` text, or nothing.

    ``max_turns_reached`` (and any attachment without content) sends nothing, as in Claude Code.
    """
    if not sends_text(attachment):
        return []
    text = attachment["content"]
    if isinstance(text, list):  # hook attachments hold a list of strings
        text = "\n".join(str(x) for x in text)
    return [{"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}]


def sends_text(attachment: dict[str, Any]) -> bool:
    """Whether :func:`attachment_blocks` gives a block (asked without building its text)."""
    return attachment.get("type") != "max_turns_reached" and bool(attachment.get("content"))


@lean_dataclass(slots=True)
class ApiMessage:
    """One message of a request: its role and where each of its blocks came from."""

    role: Literal["user", "assistant"]
    parts: list[Part]

    def to_ref(self) -> dict[str, Any]:
        return {"role": self.role, "parts": [[u, i] for u, i in self.parts]}

    @staticmethod
    def from_ref(ref: dict[str, Any]) -> ApiMessage:
        return ApiMessage(ref["role"], [(u, i) for u, i in ref["parts"]])


def _parts_of(message: Message) -> list[Part]:
    """The parts a message adds to a request (a fresh list)."""
    uuid, content = message.uuid, message.content
    if message.type == "attachment":
        return [(uuid, 0)] if sends_text(message.attachment or {}) else []
    if isinstance(content, str):
        return [(uuid, None)]
    user = message.type != "assistant"
    parts: list[Part] = []
    for i, b in enumerate(content or ()):
        # The API refuses whitespace-only text in an assistant turn; Claude Code drops it too.
        if user or b.get("type") != "text" or str(b.get("text", "")).strip():
            parts.append((uuid, i))
    return parts


def is_tool_result_part(part: Part, by_uuid: dict[str, Message]) -> bool:
    uuid, index = part
    msg = by_uuid[uuid]
    return (
        index is not None and msg.type == "user" and msg.blocks[index].get("type") == "tool_result"
    )


def _reorder_attachments(messages: Iterable[Message]) -> list[Message]:
    """Move each attachment up past plain user messages, stopping at an assistant message or a
    user message that carries tool results (Claude Code's ``reorderAttachmentsForAPI``)."""
    out: list[Message] = []
    for msg in messages:
        if msg.type != "attachment":
            out.append(msg)
            continue
        pos = len(out)
        while pos > 0 and out[pos - 1].type != "assistant" and not out[pos - 1].has_tool_result():
            if out[pos - 1].type == "attachment":
                break  # keep attachments in their own order
            pos -= 1
        out.insert(pos, msg)
    return out


def normalize_messages_for_api(messages: Sequence[Message]) -> list[ApiMessage]:
    """Turn the internal list into the messages the API accepts.

    * attachments become ``<system-reminder>`` text in a user message (or vanish);
    * assistant fragments with the same ``message_id`` merge back into one message;
    * consecutive user messages merge, with ``tool_result`` blocks hoisted to the front;
    * whitespace-only assistant text is dropped, and so are assistant messages left empty.
    """
    by_uuid: dict[str, Message] | None = None  # made when first needed: few lists merge users
    out: list[ApiMessage] = []
    last_assistant_id: str | None = None
    for msg in _reorder_attachments(messages):
        assistant = msg.type == "assistant"
        if assistant and msg.origin == "synthetic":
            continue  # an API-error notice is for the user, never for the model
        parts = _parts_of(msg)
        if not parts:
            continue
        prev = out[-1] if out else None
        if prev is not None and (prev.role == "assistant") == assistant:
            if not assistant:
                if by_uuid is None:
                    by_uuid = {m.uuid: m for m in messages}
                prev.parts.extend(parts)
                prev.parts.sort(key=lambda p: not is_tool_result_part(p, by_uuid))
                continue
            if msg.message_id == last_assistant_id:
                prev.parts.extend(parts)
                continue
        out.append(ApiMessage("assistant" if assistant else "user", parts))
        last_assistant_id = msg.message_id if assistant else None
    return out


def resolve_part(part: Part, by_uuid: dict[str, Any]) -> Any:
    """The block (or whole string content) a part points at.

    ``by_uuid`` maps uuids to :class:`Message` objects or to recorded message dicts alike.
    """
    uuid, index = part
    msg = by_uuid[uuid]
    if isinstance(msg, Message):
        mtype, content, attachment = msg.type, msg.content, msg.attachment
    else:
        mtype, content, attachment = msg["type"], msg.get("content"), msg.get("attachment")
    if mtype == "attachment":
        return attachment_blocks(attachment or {})[index or 0]
    if index is None:
        return content
    if isinstance(content, str):
        return {"type": "text", "text": content}
    return content[index]  # type: ignore[index]  # an index names a block: the content has blocks


def materialize(
    api_messages: Sequence[ApiMessage], by_uuid: dict[str, Any]
) -> list[dict[str, Any]]:
    """The ``messages`` array of a request body, built from parts."""
    out: list[dict[str, Any]] = []
    for api in api_messages:
        if len(api.parts) == 1 and api.parts[0][1] is None:
            content: Any = resolve_part(api.parts[0], by_uuid)
        else:
            content = []
            for part in api.parts:
                value = resolve_part(part, by_uuid)
                content.append({"type": "text", "text": value} if isinstance(value, str) else value)
        out.append({"role": api.role, "content": content})
    return out


CACHE_CONTROL: dict[str, Any] = {"type": "ephemeral"}
"""The prompt-cache breakpoint 2.1.88 puts on a request (``getCacheControl``'s base shape)."""


def with_cache_breakpoint(
    wire: list[dict[str, Any]], marker: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``wire`` with a ``cache_control`` breakpoint on the last block of its last message, as
    2.1.88's ``addCacheBreakpoints`` (``src/services/api/claude.ts``) places its one
    message-level marker: content that is a string becomes one text block to carry it. The
    last message and its last block are copies: the history the blocks come from is untouched.
    """
    if not wire:
        return wire
    last = wire[-1]
    content = last["content"]
    mark = dict(marker or CACHE_CONTROL)
    if isinstance(content, str):
        content = [{"type": "text", "text": content, "cache_control": mark}]
    elif content:
        content = [*content[:-1], {**content[-1], "cache_control": mark}]
    return [*wire[:-1], {**last, "content": content}]
