"""Rebuilding each request of an import in time proportional to what is new in it.

Every request resends the whole history, so building each one from scratch (normalize the whole
internal list, materialize every block, encode and hash the whole body) costs O(history) per turn
and O(turns²) per import: a 1,000-turn session took 50 s, a 10,000-turn one would take over an
hour. Yet turn after turn almost all of that work repeats. :class:`RequestCache` keeps it:

* **normalizing** (:func:`tracer.messages.normalize_messages_for_api`) is a left fold in which
  a new message only ever merges into the *last* API message, and an attachment only moves back
  to the nearest assistant message. So the fold can resume at the last assistant message that
  began an API message of its own: everything before it is final. The cache keeps that resume
  point (source index, API messages before it, the fold's ``last_assistant_id``);
* **the shared prefix** with the previous request: the API messages before the resume point
  have not changed since, so only the tail's references are compared;
* **bytes and SHA-256**: a compact JSON body is ``head + "[" + m1 + "," + m2 … + "]" + foot``, so
  the cache keeps each message's encoding and the hash state after each one; a request copies the
  state at its shared prefix and hashes only its tail. The bytes are exactly the ones
  :func:`tracer.trace.requests.encode_body` makes, which the import tests check by SHA-256.
  Lists are cut and extended in place: copying them would cost O(history) per turn again (in
  C, but still quadratic).

Claude Code needs none of this: it sends each request once. A trace reader rebuilds requests from
the same references, in :mod:`tracer.trace.requests`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tracer.messages import (
    ApiMessage,
    Message,
    _is_tool_result_part,
    _parts_of,
    _reorder_attachments,
    materialize,
)


def _encode(value: Any) -> bytes:
    """One JSON value as the SDK encodes a body (see ``tracer.trace.requests.encode_body``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


@dataclass(frozen=True, slots=True)
class Sent:
    """What a request event needs: how many API messages, the new ones, the size and hash."""

    count: int
    tail: list[dict[str, Any]]
    prefix: int
    size: int
    sha256: str
    body: bytes | None


class RequestCache:
    """Normalized list, references, encodings and hash states, kept (and edited in place)
    between turns, so that each turn costs what is new in it.

    The internal list it is given must grow by appending or be replaced by a new list; an item
    replaced inside the same list object would go unnoticed (no importer does that).
    """

    def __init__(self) -> None:
        self._src: Sequence[Message] = []
        self._src_len = 0
        self._out: list[ApiMessage] = []
        self._resume: tuple[int, int, str | None] = (0, 0, None)
        self._stable = 0
        """Leading API messages untouched since the last request (the same objects, parts)."""
        self._refs: list[dict[str, Any]] = []
        self._enc: list[bytes] = []
        self._states: list[Any] = []  # hash after head + messages[:i] (i from 0)
        self._sizes: list[int] = []
        self._head_key: str | None = None

    def _fold(self, messages: Sequence[Message]) -> None:
        """Bring ``self._out`` up to ``normalize_messages_for_api(messages)``."""
        q, k, last_id = self._resume
        grew = messages is self._src and len(messages) >= self._src_len
        if not grew and not (len(messages) >= q and messages[:q] == self._src[:q]):
            q, k, last_id = 0, 0, None  # the list changed before the resume point: start over
        self._stable = min(self._stable, k)
        out = self._out
        del out[k:]
        tail = list(messages[q:])
        by_uuid = {m.uuid: m for m in tail}
        resume = (q, k, last_id)
        for pos, msg in enumerate(_reorder_attachments(tail), start=q):
            # An assistant message keeps its source position: attachments never pass it.
            if msg.type == "assistant" and msg.origin == "synthetic":
                continue
            parts = _parts_of(msg)
            if not parts:
                continue
            role: Literal["user", "assistant"] = "assistant" if msg.type == "assistant" else "user"
            prev = out[-1] if out else None
            if prev is not None and prev.role == role:
                same_response = role == "assistant" and msg.message_id == last_id
                if role == "user" or same_response:
                    prev.parts.extend(parts)
                    if role == "user":
                        prev.parts.sort(key=lambda p: not _is_tool_result_part(p, by_uuid))
                    continue
            if role == "assistant":
                resume = (pos, len(out), last_id)
            out.append(ApiMessage(role, list(parts)))
            last_id = msg.message_id if role == "assistant" else None
        self._src, self._src_len, self._resume = messages, len(messages), resume

    def normalize(self, messages: Sequence[Message]) -> list[ApiMessage]:
        """``normalize_messages_for_api(messages)`` (copies: the cache keeps editing its own)."""
        self._fold(messages)
        return [ApiMessage(m.role, list(m.parts)) for m in self._out]

    def count(self, messages: Sequence[Message]) -> int:
        """How many API messages ``messages`` normalizes to."""
        self._fold(messages)
        return len(self._out)

    def request(
        self,
        messages: Sequence[Message],
        by_uuid: dict[str, Any],
        params: dict[str, Any],
        keys: Sequence[str],
        *,
        whole: bool = False,
    ) -> Sent:
        """The request ``messages`` make: its new references, shared prefix, size, SHA-256."""
        self._fold(messages)
        api = self._out
        if "messages" not in keys:  # no list to share: encode the body as it is
            encoded = _encode({k: params[k] for k in keys})
            refs = [m.to_ref() for m in api]
            return Sent(len(refs), refs, 0, len(encoded), _sha(encoded), encoded)
        same = min(self._stable, len(self._refs))
        old_tail = self._refs[same:]
        del self._refs[same:]
        self._refs.extend(m.to_ref() for m in api[same:])
        refs = self._refs
        prefix = same
        while (
            prefix < min(len(refs), same + len(old_tail))
            and refs[prefix] == old_tail[prefix - same]
        ):
            prefix += 1
        where = list(keys).index("messages")
        head = (
            b"{"
            + b",".join(_encode(k) + b":" + _encode(params[k]) for k in keys[:where])
            + (b"," if where else b"")
            + b'"messages":['
        )
        foot = (
            b"]"
            + b"".join(b"," + _encode(k) + b":" + _encode(params[k]) for k in keys[where + 1 :])
            + b"}"
        )
        head_key = head.decode()
        if head_key != self._head_key:  # other parameters: nothing before the messages is shared
            self._head_key = head_key
            self._enc, self._states, self._sizes = [], [hashlib.sha256(head)], [len(head)]
        keep = min(prefix, len(self._enc))
        enc, states, sizes = self._enc, self._states, self._sizes
        del enc[keep:], states[keep + 1 :], sizes[keep + 1 :]
        enc.extend(_encode(w) for w in materialize(api[keep:], by_uuid))
        for i in range(keep, len(enc)):
            piece = (b"," if i else b"") + enc[i]
            state = states[-1].copy()
            state.update(piece)
            states.append(state)
            sizes.append(sizes[-1] + len(piece))
        final = states[-1].copy()
        final.update(foot)
        self._stable = len(api)
        body = head + b",".join(enc) + foot if whole else None
        return Sent(
            len(refs), refs[prefix:], prefix, sizes[-1] + len(foot), final.hexdigest(), body
        )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
