"""The size and SHA-256 of each rebuilt request, without encoding the whole history every time.

Every request resends the whole conversation, so encoding each body from scratch costs calls ×
history: on a long session that, not reading the transcript, was most of an import. But a
request's body is ``head + "[" + m1 + "," + m2 + … + "]" + tail``, and the next request repeats
the same first messages. :class:`BodyHasher` therefore encodes each API message once (the same
compact JSON as :func:`tracer.trace.requests.encode_body`, so the result is byte-identical) and
keeps the SHA-256 state after every message: the next request copies the state at the end of the
shared prefix and hashes only what is new. The prefix the caller names is what the *trace* says
the request shares with the last one; after a nested loop that is nothing (the trace starts
afresh, for readers that do not know nesting), but the messages are still the ones this hasher
encoded last time, so it looks on its own how far they agree. The replay and the doctor still
rebuild and check the full bodies; tests compare the two.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tracer.model.api_messages import ApiMessage, materialize
from tracer.trace.compact_json import bytes_encoder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SLOT = "\x00tracer-messages\x00"


_dumps = bytes_encoder(allow_nan=False)  # the bytes of encode_body: the SDK refuses NaN


class BodyHasher:
    """Bytes and SHA-256 of request bodies that share a growing ``messages`` prefix."""

    def __init__(self) -> None:
        self._frame: tuple[bytes, bytes] | None = None
        self._frame_key: tuple[list[str], dict[str, Any]] | None = None
        self._states: list[Any] = []
        """SHA-256 state after head, "[" and the first k+1 messages (commas between)."""
        self._sizes: list[int] = []
        self._sent: list[ApiMessage] = []
        """The API messages those states were computed from."""

    def _split(self, params: dict[str, Any], keys: Sequence[str]) -> tuple[bytes, bytes]:
        key = (list(keys), params)
        if key != self._frame_key:
            body = {k: _SLOT if k == "messages" else params[k] for k in keys}
            encoded = _dumps(body)
            head, tail = encoded.split(_dumps(_SLOT), 1)
            self._frame, self._frame_key = (head, tail), (list(keys), dict(params))
            self._states, self._sizes, self._sent = [], [], []  # a new head: nothing reused
        assert self._frame is not None
        return self._frame

    def digest(
        self,
        params: dict[str, Any],
        keys: Sequence[str],
        api: list[ApiMessage],
        prefix: int,
        by_uuid: dict[str, Any],
    ) -> tuple[int, str]:
        """``(bytes, sha256)`` of the body; its first ``prefix`` messages are the last body's."""
        head, tail = self._split(params, keys)
        prefix = min(prefix, len(self._states))
        sent, limit = self._sent, min(len(api), len(self._states))
        while prefix < limit and (  # the same parts of the same messages: the same bytes
            api[prefix] is sent[prefix]
            or (api[prefix].role == sent[prefix].role and api[prefix].parts == sent[prefix].parts)
        ):
            prefix += 1
        if prefix:
            state, size = self._states[prefix - 1].copy(), self._sizes[prefix - 1]
        else:
            state, size = hashlib.sha256(head + b"["), len(head) + 1
        del self._states[prefix:], self._sizes[prefix:], sent[prefix:]
        sent += api[prefix:]
        for k, wire in enumerate(materialize(api[prefix:], by_uuid), start=prefix):
            piece = (b"," if k else b"") + _dumps(wire)
            state.update(piece)
            size += len(piece)
            self._states.append(state.copy())
            self._sizes.append(size)
        state.update(b"]" + tail)
        return size + 1 + len(tail), state.hexdigest()
