"""The internal message list behind a logged request: one slot per API message.

A wire log shows the API's ``messages`` array, not Claude Code's internal list. :class:`Wire`
keeps one slot per API message holding the internal messages it came from (one per assistant
block, one per tool result, as Claude Code keeps them) and what was last sent there. When a later
request resends a slot differently (Claude Code moves its ``cache_control`` markers to the newest
blocks every time), the new version is recorded under a new uuid and takes the old one's place,
so every request still rebuilds byte for byte.
"""

from __future__ import annotations

import uuid as uuidlib
from pathlib import Path
from typing import Any

from tracer.importers.builder import TraceBuilder
from tracer.model.internal_messages import Message


class Wire:
    """The internal list as positions of the API ``messages`` array, each one or more messages."""

    def __init__(self, builder: TraceBuilder, path: Path) -> None:
        self.b = builder
        self.positions: list[list[Message]] = []
        self.sent: list[Any] = []
        self._seed = str(path)
        self._n = 0

    def uuid(self) -> str:
        self._n += 1
        return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"tracer-import:{self._seed}:{self._n}"))

    def messages_for(self, api: dict[str, Any], message_id: str | None = None) -> list[Message]:
        """Internal messages for one API message: one per assistant block, as Claude Code keeps
        them; user content split per tool_result only when that normalizes back the same way."""
        content = api.get("content")
        if api.get("role") == "assistant" and isinstance(content, list):
            return [
                Message(
                    type="assistant",
                    uuid=self.uuid(),
                    content=[block],
                    message_id=message_id,
                    origin="response",
                    timestamp="",
                )
                for block in content
            ]
        if api.get("role") == "assistant":
            return [
                Message(
                    type="assistant",
                    uuid=self.uuid(),
                    content=content,
                    message_id=message_id,
                    origin="response",
                    timestamp="",
                )
            ]
        blocks = content if isinstance(content, list) else []
        kinds = [isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks]
        if any(kinds) and kinds == sorted(kinds, reverse=True):
            split = [
                Message(
                    type="user", uuid=self.uuid(), content=[b], origin="tool_result", timestamp=""
                )
                for b, is_result in zip(blocks, kinds, strict=True)
                if is_result
            ]
            rest = [b for b, is_result in zip(blocks, kinds, strict=True) if not is_result]
            if rest:
                split.append(Message(type="user", uuid=self.uuid(), content=rest, timestamp=""))
            return split
        return [Message(type="user", uuid=self.uuid(), content=content, timestamp="")]

    def place(self, k: int, api: dict[str, Any], messages: list[Message]) -> None:
        if k < len(self.positions):
            self.positions[k], self.sent[k] = messages, api
        else:
            self.positions.append(messages)
            self.sent.append(api)

    def sync(self, body_messages: list[Any]) -> None:
        """Make the internal list match a request: new or changed messages are recorded."""
        for k, api in enumerate(body_messages):
            if k < len(self.sent) and self.sent[k] == api:
                continue
            messages = self.messages_for(api, f"logged-{k}")
            self.b.record(messages)
            self.place(k, api, messages)
        del self.positions[len(body_messages) :], self.sent[len(body_messages) :]
        self.b.messages = [m for group in self.positions for m in group]
