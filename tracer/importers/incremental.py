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
* **the shared prefix** with the previous request is found by identity (the final API messages
  are the very same objects), so only the tail's references are compared;
* **bytes and SHA-256**: a compact JSON body is ``head + "[" + m1 + "," + m2 … + "]" + foot``, so
  the cache keeps each message's encoding and the hash state after each one; a request copies the
  state at its shared prefix and hashes only its tail. The bytes are exactly the ones
  :func:`tracer.trace.requests.encode_body` makes, which the import tests check by SHA-256.

Claude Code needs none of this: it sends each request once. A trace reader rebuilds requests from
the same references, in :mod:`tracer.trace.requests`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
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


class RequestCache:
    """Normalized lists, references, encodings and hash states, kept between turns."""

    def __init__(self) -> None:
        self._src: list[Message] = []
        self._out: list[ApiMessage] = []
        self._resume: tuple[int, int, str | None] = (0, 0, None)
        # The last *request*: its API messages, their references, encodings and running hashes.
        self._sent: list[ApiMessage] = []
        self._refs: list[dict[str, Any]] = []
        self._enc: list[bytes] = []
        self._states: list[Any] = []  # hash after head + messages[:i] (i from 0)
        self._sizes: list[int] = []
        self._head_key: str | None = None

    def normalize(self, messages: Sequence[Message]) -> list[ApiMessage]:
        """``normalize_messages_for_api(messages)``, resuming from the last safe point."""
        q, k, last_id = self._resume
        if not (len(messages) >= q and list(messages[:q]) == self._src[:q]):
            q, k, last_id = 0, 0, None  # the list changed before the resume point: start over
        out = self._out[:k]
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
        self._src, self._out, self._resume = list(messages), out, resume
        # The API message at the resume point is rebuilt by the next fold: hand out a copy of
        # its parts, so that what the caller holds never changes under it.
        cut = resume[1]  # slices, not a loop: this runs every turn over the whole history
        return out[:cut] + [ApiMessage(m.role, list(m.parts)) for m in out[cut:]]

    def request(
        self,
        api: list[ApiMessage],
        by_uuid: dict[str, Any],
        params: dict[str, Any],
        keys: Sequence[str],
        *,
        whole: bool = False,
    ) -> tuple[list[dict[str, Any]], int, int, str, bytes | None]:
        """References, shared prefix, size and SHA-256 of the body; the bytes when ``whole``."""
        if "messages" not in keys:  # no list to share: encode the body as it is
            body = {k: params[k] for k in keys}
            encoded = _encode(body)
            return [m.to_ref() for m in api], 0, len(encoded), _sha(encoded), encoded
        same = _identical_prefix(api, self._sent)
        refs = self._refs[:same] + [m.to_ref() for m in api[same:]]
        prefix = same
        while prefix < min(len(refs), len(self._refs)) and refs[prefix] == self._refs[prefix]:
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
            prefix, self._head_key = 0, head_key
            self._enc, self._states, self._sizes = [], [hashlib.sha256(head)], [len(head)]
        keep = min(prefix, len(self._enc))
        enc = self._enc[:keep] + [_encode(w) for w in materialize(api[keep:], by_uuid)]
        states, sizes = self._states[: keep + 1], self._sizes[: keep + 1]
        for i in range(keep, len(enc)):
            piece = (b"," if i else b"") + enc[i]
            state = states[-1].copy()
            state.update(piece)
            states.append(state)
            sizes.append(sizes[-1] + len(piece))
        final = states[-1].copy()
        final.update(foot)
        self._sent, self._refs, self._enc, self._states, self._sizes = (
            list(api),
            refs,
            enc,
            states,
            sizes,
        )
        whole_body = head + b",".join(enc) + foot if whole else None
        return refs, prefix, sizes[-1] + len(foot), final.hexdigest(), whole_body


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _identical_prefix(new: list[ApiMessage], old: list[ApiMessage]) -> int:
    """How many leading API messages are the very same objects (a binary search: the shared
    ones always form a prefix, since only the tail is ever rebuilt)."""
    lo, hi = 0, min(len(new), len(old))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if new[mid - 1] is old[mid - 1]:
            lo = mid
        else:
            hi = mid - 1
    return lo
