"""Messages: the internal list the loop keeps, and the list the API is sent.

Mirrors Claude Code's ``utils/messages.ts``. This is the bottom layer both the agent (which makes
messages) and the trace (which stores and rebuilds requests from them) stand on, so it imports
nothing from either; ``tracer.agent.messages`` re-exports it for older
imports. Two lists matter in chapter 12:

* the **internal** list (``State.messages``): one assistant message per streamed content block
  (all sharing the API ``message_id``), one user message per tool result, and attachment messages.
  This is what the chapter's ``[DEBUG] Loop turn: … messages: N`` counts;
* the list **sent to the API**, made by :func:`normalize_messages_for_api`: same-id assistant
  pieces merged back into one message, consecutive user messages merged with their
  ``tool_result`` blocks first, attachments turned into ``<system-reminder>`` text.

Each API message remembers where its blocks came from (``parts``: ``(uuid, index)`` pairs), so a
trace can store a request by reference and :func:`materialize` can rebuild it byte for byte.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

NO_CONTENT_MESSAGE = "(no content)"
MISSING_RESULT_MESSAGE = "[Tool result missing due to internal error]"
"""What Claude Code's ``ensureToolResultPairing`` (and ``yieldMissingToolResultBlocks``) answer
an unanswered ``tool_use`` with, as an ``is_error`` result."""

Part = tuple[str, int | None]
"""Where an API block came from: ``(message uuid, block index)``; index ``None`` = whole content."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UuidSource:
    """Makes message uuids. Seeded for scripted sessions, so recordings are reproducible."""

    def __init__(self, seed: str | None = None) -> None:
        self._seed = seed
        self._n = 0

    def __call__(self) -> str:
        if self._seed is None:
            return str(uuidlib.uuid4())
        self._n += 1
        return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"tracer:{self._seed}:{self._n}"))


@dataclass(slots=True)
class Message:
    """One entry of the internal message list (Claude Code's ``Message`` union, simplified)."""

    type: Literal["user", "assistant", "attachment"]
    uuid: str
    content: str | list[dict[str, Any]] | None = None
    attachment: dict[str, Any] | None = None
    message_id: str | None = None
    is_meta: bool = False
    origin: str = "prompt"
    tool_use_result: Any = None
    source_tool_assistant_uuid: str | None = None
    timestamp: str = field(default_factory=now_iso)

    @property
    def blocks(self) -> list[dict[str, Any]]:
        """The content as a list of blocks (a string becomes one text block)."""
        if isinstance(self.content, list):
            return self.content
        if isinstance(self.content, str):
            return [{"type": "text", "text": self.content}]
        return []

    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.blocks if b.get("type") == "tool_use"]

    def has_tool_result(self) -> bool:
        return self.type == "user" and any(b.get("type") == "tool_result" for b in self.blocks)


# -- constructors ----------------------------------------------------------------------------


def create_user_message(
    content: str | list[dict[str, Any]],
    *,
    new_uuid: Callable[[], str],
    tool_use_result: Any = None,
    source_tool_assistant_uuid: str | None = None,
    is_meta: bool = False,
    origin: str = "prompt",
) -> Message:
    """Wrap content in a user message: the only role besides ``assistant`` the API knows.

    ``tool_use_result`` (the tool's raw output) travels with the message but is never sent;
    ``source_tool_assistant_uuid`` links the result to the assistant message that asked for it.
    """
    return Message(
        type="user",
        uuid=new_uuid(),
        content=content or NO_CONTENT_MESSAGE,
        is_meta=is_meta,
        origin=origin,
        tool_use_result=tool_use_result,
        source_tool_assistant_uuid=source_tool_assistant_uuid,
    )


def create_attachment_message(
    attachment: dict[str, Any], *, new_uuid: Callable[[], str]
) -> Message:
    return Message(type="attachment", uuid=new_uuid(), attachment=attachment, origin="attachment")


def create_assistant_messages(
    message_id: str, blocks: Sequence[dict[str, Any]], *, new_uuid: Callable[[], str]
) -> list[Message]:
    """One internal assistant message per content block, as Claude Code's stream handler yields."""
    return [
        Message(
            type="assistant",
            uuid=new_uuid(),
            content=[block],
            message_id=message_id,
            origin="response",
        )
        for block in blocks
    ]


def create_api_error_message(text: str, *, new_uuid: Callable[[], str]) -> Message:
    """A synthetic assistant message telling the user the API failed (never sent back)."""
    return Message(
        type="assistant",
        uuid=new_uuid(),
        content=[{"type": "text", "text": text}],
        message_id=None,
        origin="synthetic",
    )


def tool_use_error(text: str) -> str:
    """The tag that tells the model "this is an error, not output"."""
    return f"<tool_use_error>{text}</tool_use_error>"


def content_length(content: Any) -> int:
    """``String(content).length``, as the chapter's ``Tool result`` hook computes it.

    JavaScript measures strings in UTF-16 code units, and ``String([...])`` of an array of block
    objects is ``"[object Object]"`` per element joined by commas, which is what the hook really
    prints for a result whose content is a list.
    """
    if isinstance(content, str):
        if content.isascii():  # a flag CPython keeps on every str: no need to encode
            return len(content)
        return len(content.encode("utf-16-le")) // 2
    if isinstance(content, list):
        return len(",".join("[object Object]" if isinstance(b, dict) else str(b) for b in content))
    if content is None:
        return len("undefined")
    return len(str(content))


# -- what the API is sent --------------------------------------------------------------------


def attachment_blocks(attachment: dict[str, Any]) -> list[dict[str, Any]]:
    """What an attachment contributes to the request: ``<system-reminder>`` text, or nothing.

    ``max_turns_reached`` (and any attachment without content) sends nothing, as in Claude Code.
    """
    text = attachment.get("content")
    if attachment.get("type") == "max_turns_reached" or not text:
        return []
    if isinstance(text, list):  # hook attachments hold a list of strings
        text = "\n".join(str(x) for x in text)
    return [{"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}]


@dataclass(slots=True)
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
    if message.type == "attachment":
        return [(message.uuid, 0)] if attachment_blocks(message.attachment or {}) else []
    if isinstance(message.content, str):
        return [(message.uuid, None)]
    blocks = message.content or []
    if message.type == "assistant":
        # The API refuses whitespace-only text in an assistant turn; Claude Code drops it too.
        return [
            (message.uuid, i)
            for i, b in enumerate(blocks)
            if not (b.get("type") == "text" and not str(b.get("text", "")).strip())
        ]
    return [(message.uuid, i) for i in range(len(blocks))]


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
    by_uuid = {m.uuid: m for m in messages}
    out: list[ApiMessage] = []
    last_assistant_id: str | None = None
    for msg in _reorder_attachments(messages):
        if msg.type == "assistant" and msg.origin == "synthetic":
            continue  # an API-error notice is for the user, never for the model
        parts = _parts_of(msg)
        if not parts:
            continue
        role: Literal["user", "assistant"] = "assistant" if msg.type == "assistant" else "user"
        prev = out[-1] if out else None
        if prev is not None and prev.role == role:
            same_response = role == "assistant" and msg.message_id == last_assistant_id
            if role == "user" or same_response:
                prev.parts.extend(parts)
                if role == "user":
                    prev.parts.sort(key=lambda p: not is_tool_result_part(p, by_uuid))
                continue
        out.append(ApiMessage(role, list(parts)))
        last_assistant_id = msg.message_id if role == "assistant" else None
    return out


def synthetic_tool_result_block(tool_use_id: str) -> dict[str, Any]:
    """The block Claude Code makes up for a ``tool_use`` that has no result."""
    return {
        "type": "tool_result",
        "content": MISSING_RESULT_MESSAGE,
        "is_error": True,
        "tool_use_id": tool_use_id,
    }


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
    return content[index]


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
