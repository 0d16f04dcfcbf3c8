"""Rebuilding each request from a trace, byte for byte.

A ``request`` event stores only what changed: "the first ``prefix_len`` API messages of request
``prefix_request``, then ``tail``", plus the body's other parameters when they change. Replaying the
events in order therefore gives every request exactly as it was sent (the same JSON encoding as the
SDK: compact separators, non-ASCII kept), which a test proves by comparing SHA-256 hashes. The
request's ``cache_control`` breakpoint is not in the stored messages: the event says which marker
went on the last block of the last message, and the rebuild puts it back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from tracer.model.api_messages import ApiMessage, materialize, with_cache_breakpoint
from tracer.trace.event_class import lean_dataclass
from tracer.trace.events import MessageRecorded, RequestSent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@lean_dataclass(frozen=True, slots=True)
class RebuiltRequest:
    """One request as it was sent: the ``request`` event that recorded it, its API messages and
    the body the SDK encoded (:meth:`encode` gives its bytes)."""

    event: RequestSent
    api_messages: list[ApiMessage]
    body: dict[str, Any]

    def encode(self) -> bytes:
        return encode_body(self.body)


def encode_body(body: dict[str, Any]) -> bytes:
    """JSON exactly as the ``anthropic`` SDK encodes a request body."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def rebuild_requests(events: Iterable[Any]) -> Iterator[RebuiltRequest]:
    """Every request of a session, in order, from its events."""
    messages: dict[str, dict[str, Any]] = {}
    previous: list[ApiMessage] = []
    params: dict[str, Any] = {}
    keys: list[str] = ["messages"]
    for event in events:
        if isinstance(event, MessageRecorded):
            messages[event.uuid] = {
                "type": event.type,
                "content": event.content,
                "attachment": event.attachment,
            }
        elif isinstance(event, RequestSent):
            if event.params is not None:
                params, keys = event.params, list(event.body_keys or [*event.params, "messages"])
            api = [*previous[: event.prefix_len], *(ApiMessage.from_ref(r) for r in event.tail)]
            wire = materialize(api, messages)
            if event.cache_control is not None:
                wire = with_cache_breakpoint(wire, event.cache_control)
            body = {k: wire if k == "messages" else params[k] for k in keys}
            previous = api
            yield RebuiltRequest(event, api, body)
