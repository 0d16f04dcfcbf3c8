"""The internal list: the messages the loop keeps, and the functions that make them.

Mirrors the constructors of Claude Code's ``utils/messages.ts`` (``createUserMessage``,
``createAssistantMessage``, ``createAttachmentMessage``, ``createAssistantAPIErrorMessage``) and
the per-block assistant messages of ``services/api/claude.ts``. This list (``State.messages``) is
what the chapter's ``[DEBUG] Loop turn: … messages: N`` counts: one assistant message per
streamed content block (all sharing the API ``message_id``), one user message per tool result,
and attachment messages. What the API is sent is made from it by
:mod:`tracer.model.api_messages`.

It is the bottom layer: it imports nothing from the agent or the trace. Callers import it
through :mod:`tracer.model`.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable, Sequence
from dataclasses import field
from datetime import UTC, datetime

from tracer.model.record_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import builtins
    from typing import Any, ClassVar, Literal, Self

NO_CONTENT_MESSAGE = "(no content)"
MISSING_RESULT_MESSAGE = "[Tool result missing due to internal error]"
"""What Claude Code's ``ensureToolResultPairing`` (and ``yieldMissingToolResultBlocks``) answer
an unanswered ``tool_use`` with, as an ``is_error`` result."""


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


@lean_dataclass(slots=True, new=True)  # new: an import makes one per record it reads
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
    if TYPE_CHECKING:  # given by lean_dataclass(new=True); typed as the class, whose call it is
        new: ClassVar[builtins.type[Self]]  # builtins': the field above is named type

    @property
    def blocks(self) -> list[dict[str, Any]]:
        """The content as a list of blocks (a string becomes one text block)."""
        content = self.content
        if isinstance(content, list):
            return content
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return []

    # The two questions below are asked of every message many times over in an import, so they
    # read the content itself: only a list of blocks can hold a tool block (a string is text).

    def tool_uses(self) -> list[dict[str, Any]]:
        content = self.content
        if not isinstance(content, list):
            return []
        return [b for b in content if b.get("type") == "tool_use"]

    def has_tool_result(self) -> bool:
        content = self.content
        if self.type != "user" or not isinstance(content, list):
            return False
        # A loop, not any() over a generator: this runs for every message at every step.
        for b in content:  # noqa: SIM110 (see above)
            if b.get("type") == "tool_result":
                return True
        return False


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
        # "utf-16" (a byte-order mark, then the text) is one of the encodings CPython encodes
        # without looking a codec up: "utf-16-le" imported its codec module in every import
        # whose session has a non-ASCII result.
        return len(content.encode("utf-16")) // 2 - 1
    if isinstance(content, list):
        return len(",".join("[object Object]" if isinstance(b, dict) else str(b) for b in content))
    if content is None:
        return len("undefined")
    return len(str(content))


def synthetic_tool_result_block(tool_use_id: str) -> dict[str, Any]:
    """The block Claude Code makes up for a ``tool_use`` that has no result."""
    return {
        "type": "tool_result",
        "content": MISSING_RESULT_MESSAGE,
        "is_error": True,
        "tool_use_id": tool_use_id,
    }
