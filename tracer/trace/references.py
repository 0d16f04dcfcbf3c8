"""Checks across events: everything an event refers to was written before it.

One event on its own can be sound and still point at nothing: a request part naming a message
uuid the trace never wrote, a block index past the end of that message, a response listing
assistant messages that are not there, a prefix longer than the request it shares. The views
follow these references (the replay draws the messages, the doctor and the exports rebuild each
request), so ``validate`` follows them first, in file order, the way the writer made them: a
message is written once, before anything names it.

Claude Code keeps the same rule in memory (a ``tool_result`` must answer a ``tool_use`` already
sent, see ``ensureToolResultPairing`` in ``utils/messages.ts``); here it is a property of the file.
"""

from __future__ import annotations

from collections.abc import Callable

from tracer.model.api_messages import attachment_blocks
from tracer.trace.events import (
    HistoryAppended,
    MessageRecorded,
    RequestSent,
    ResponseReceived,
    ResultWrapped,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class References:
    """Feed events in file order; :meth:`problem` says what the next one points at wrongly."""

    def __init__(self) -> None:
        self._blocks: dict[str, int | None] = {}
        """Each message written so far: how many blocks it has (``None``: string content)."""
        self._attachments: set[str] = set()
        self._api_len = 0
        """How many API messages the previous request held (the next prefix can share no more)."""

    def problem(self, event: Any, first_block: bool = False) -> str | None:
        """What ``event`` points at wrongly, or ``None``. ``first_block``: the message's first
        block is held elsewhere (its ``block_seq`` points at it) and counts too."""
        if isinstance(event, MessageRecorded):
            self.message(event, first_block)
            return None
        if isinstance(event, RequestSent):
            return self._request(event)
        if isinstance(event, ResponseReceived):
            return self._response(event)
        if isinstance(event, ResultWrapped):
            return self._wrapping(event)
        if isinstance(event, HistoryAppended):
            return self._appending(event)
        return None

    def for_kind(self, kind: str) -> Callable[[Any], str | None] | None:
        """:meth:`problem` for the events of one kind that names others (not ``message``: see
        :meth:`message`), ``None`` for a kind that names nothing: asked once a kind by a caller
        that feeds thousands of events (the import's line check), not a chain of ``isinstance``
        an event."""
        # Each method takes its own event class: mypy joins them into "function".
        return {  # type: ignore[return-value]
            "request": self._request,
            "response": self._response,
            "wrapping": self._wrapping,
            "appending": self._appending,
        }.get(kind)

    def message(self, event: MessageRecorded, first_block: bool = False) -> None:
        """Note a message written (what :meth:`problem` does with one): how many blocks a
        request may name in it."""
        content = event.content
        if event.type == "attachment":
            count: int | None = _attachment_count(event)
            self._attachments.add(event.uuid)
        elif isinstance(content, list):
            count = len(content)
        else:
            count = None if isinstance(content, str) else 0
        self._blocks[event.uuid] = count + 1 if first_block and count is not None else count

    def _response(self, event: ResponseReceived) -> str | None:
        return self._known(event.assistant_uuids, "response")

    def _wrapping(self, event: ResultWrapped) -> str | None:
        if event.message_uuid in self._blocks:
            return None
        return self._known([event.message_uuid], "wrapping")

    def _appending(self, event: HistoryAppended) -> str | None:
        return self._known(event.new_uuids, "appending")

    def _known(self, uuids: list[str], kind: str) -> str | None:
        blocks = self._blocks
        for uuid in uuids:  # a loop, not next() over a generator: one frame less an event
            if uuid not in blocks:
                return f"{kind} names message {uuid}, which no earlier message event holds"
        return None

    def _request(self, event: RequestSent) -> str | None:
        # Worded only when something is wrong: nearly every request points only at what it may.
        held, self._api_len = self._api_len, event.prefix_len + len(event.tail)
        if event.prefix_len > held:
            return (
                f"request {event.request_index} shares {event.prefix_len} messages with a "
                f"request that held {held}"
            )
        blocks = self._blocks
        for api in event.tail:
            for uuid, index in api["parts"]:
                if uuid not in blocks:
                    return (
                        f"request {event.request_index} names message {uuid}, which no earlier "
                        "message event holds"
                    )
                count = blocks[uuid]
                if index is None and uuid in self._attachments:
                    index = 0  # an attachment's whole content is its first block
                if index is not None and count is not None and index >= count:
                    return (
                        f"request {event.request_index} names block {index} of message {uuid}, "
                        f"which has {count}"
                    )
        return None


def _attachment_count(message: MessageRecorded) -> int:
    """How many blocks an attachment becomes (what a request may name in it)."""
    try:
        return len(attachment_blocks(message.attachment or {}))
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0  # an attachment of a shape the model cannot hold: nothing may point into it
