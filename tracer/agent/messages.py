"""The message model, re-exported from :mod:`tracer.messages`, where it now lives.

The model sits below both the agent and the trace layer (the trace rebuilds requests from it), so
it moved out of the agent package; this module keeps ``from tracer.agent.messages import …``
working for code written before the move.
"""

from __future__ import annotations

from tracer.messages import (
    MISSING_RESULT_MESSAGE,
    NO_CONTENT_MESSAGE,
    ApiMessage,
    Message,
    Part,
    UuidSource,
    attachment_blocks,
    content_length,
    create_api_error_message,
    create_assistant_messages,
    create_attachment_message,
    create_user_message,
    materialize,
    normalize_messages_for_api,
    now_iso,
    resolve_part,
    synthetic_tool_result_block,
    tool_use_error,
)
from tracer.pairing import PairingRepair, ensure_tool_result_pairing

__all__ = [
    "MISSING_RESULT_MESSAGE",
    "NO_CONTENT_MESSAGE",
    "ApiMessage",
    "Message",
    "PairingRepair",
    "Part",
    "UuidSource",
    "attachment_blocks",
    "content_length",
    "create_api_error_message",
    "create_assistant_messages",
    "create_attachment_message",
    "create_user_message",
    "ensure_tool_result_pairing",
    "materialize",
    "normalize_messages_for_api",
    "now_iso",
    "resolve_part",
    "synthetic_tool_result_block",
    "tool_use_error",
]
