"""Messages: the internal list the loop keeps, and the list the API is sent.

Mirrors Claude Code's ``utils/messages.ts``. This is the bottom layer both the agent (which makes
messages) and the trace (which stores and rebuilds requests from them) stand on, so it imports
nothing from either; ``tracer.agent.messages`` re-exports it for older imports. Two lists matter
in chapter 12, each in its own module:

* the **internal** list (``State.messages``), in :mod:`tracer.internal_messages`: one assistant
  message per streamed content block (all sharing the API ``message_id``), one user message per
  tool result, and attachment messages. This is what the chapter's ``[DEBUG] Loop turn: …
  messages: N`` counts;
* the list **sent to the API**, in :mod:`tracer.api_messages`, made by
  :func:`normalize_messages_for_api`: same-id assistant pieces merged back into one message,
  consecutive user messages merged with their ``tool_result`` blocks first, attachments turned
  into ``<system-reminder>`` text.

Each API message remembers where its blocks came from (``parts``: ``(uuid, index)`` pairs), so a
trace can store a request by reference and :func:`materialize` can rebuild it byte for byte.

This module holds no code of its own: it is the one place callers import both lists from.
"""

from __future__ import annotations

from tracer.api_messages import (
    CACHE_CONTROL,
    ApiMessage,
    Part,
    attachment_blocks,
    is_tool_result_part,
    materialize,
    normalize_messages_for_api,
    resolve_part,
    with_cache_breakpoint,
)
from tracer.internal_messages import (
    MISSING_RESULT_MESSAGE,
    NO_CONTENT_MESSAGE,
    Message,
    UuidSource,
    content_length,
    create_api_error_message,
    create_assistant_messages,
    create_attachment_message,
    create_user_message,
    now_iso,
    synthetic_tool_result_block,
    tool_use_error,
)

__all__ = [
    "CACHE_CONTROL",
    "MISSING_RESULT_MESSAGE",
    "NO_CONTENT_MESSAGE",
    "ApiMessage",
    "Message",
    "Part",
    "UuidSource",
    "attachment_blocks",
    "content_length",
    "create_api_error_message",
    "create_assistant_messages",
    "create_attachment_message",
    "create_user_message",
    "is_tool_result_part",
    "materialize",
    "normalize_messages_for_api",
    "now_iso",
    "resolve_part",
    "synthetic_tool_result_block",
    "tool_use_error",
    "with_cache_breakpoint",
]
