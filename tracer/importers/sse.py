"""Rebuilding a streamed Messages API response from its raw server-sent events.

A streamed ``/v1/messages`` answer is a sequence of ``event:``/``data:`` pairs: ``message_start``
(the message shell and the input-side usage), then per content block ``content_block_start``,
``content_block_delta`` pieces (``text_delta``, ``thinking_delta``, ``signature_delta``, and
``input_json_delta`` fragments of a tool's input, valid JSON only once joined), and
``content_block_stop``; then ``message_delta`` (``stop_reason`` and the final ``output_tokens``)
and ``message_stop``. ``ping`` keeps the connection alive. This is the same folding the
``anthropic`` SDK's stream accumulator does, written out so a logged ``body_raw`` can be read
without the SDK.
"""

from __future__ import annotations

import json
from typing import Any


def sse_events(raw: str) -> list[dict[str, Any]]:
    """The ``data`` objects of an SSE text, in order (comments and bad lines skipped)."""
    events: list[dict[str, Any]] = []
    for chunk in raw.replace("\r\n", "\n").split("\n\n"):
        lines = chunk.split("\n")
        data = "\n".join(line[5:].lstrip() for line in lines if line.startswith("data:"))
        if not data:
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return events


def accumulate(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Fold stream events into the final message (``content``, ``stop_reason``, ``usage``)."""
    message: dict[str, Any] = {"content": [], "usage": {}}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            start = event.get("message") or {}
            message.update({k: v for k, v in start.items() if k != "content"})
            message["usage"] = dict(start.get("usage") or {})
            message["content"] = []
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            if block.get("type") in ("tool_use", "server_tool_use"):
                partial[len(message["content"])] = ""
            message["content"].append(block)
        elif kind == "content_block_delta":
            _apply_delta(message["content"], partial, event)
        elif kind == "content_block_stop":
            index = int(event.get("index", len(message["content"]) - 1))
            if index in partial:
                text = partial.pop(index)
                message["content"][index]["input"] = json.loads(text) if text else {}
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            message["stop_reason"] = delta.get("stop_reason", message.get("stop_reason"))
            message["stop_sequence"] = delta.get("stop_sequence", message.get("stop_sequence"))
            message["usage"].update(event.get("usage") or {})
    for index, text in partial.items():  # a stream cut before content_block_stop
        try:
            message["content"][index]["input"] = json.loads(text) if text else {}
        except ValueError:
            message["content"][index]["input"] = {"_partial_json": text}
    return message


def _apply_delta(content: list[dict[str, Any]], partial: dict[int, str],
                 event: dict[str, Any]) -> None:
    index = int(event.get("index", len(content) - 1))
    if not 0 <= index < len(content):
        return
    block, delta = content[index], event.get("delta") or {}
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + delta.get("text", "")
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + delta.get("signature", "")
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + delta.get("partial_json", "")


def parse_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """The message a logged response holds: ``body`` when not streamed, else ``body_raw``."""
    body = response.get("body")
    if isinstance(body, dict) and body.get("type") == "message":
        return body
    raw = response.get("body_raw")
    if isinstance(raw, str) and raw.strip():
        return accumulate(sse_events(raw))
    return None
