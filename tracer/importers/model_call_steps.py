"""The steps of one imported model call: turn start, resending, the response, the follow-up.

In Claude Code each pass of ``queryLoop()`` (``src/query.ts``) normalizes the internal list and
**resends** the whole history; the response's ``tool_use`` blocks then decide whether the loop
follows up. :class:`ModelCallSteps` writes those steps for an import: ``turn_start`` and the
``Loop turn`` hook, the ``request`` (stored by reference, exactly as ``Resender._log_request``
stores it: the part shared with the last request by count, the rest as message refs, the body's
size and hash), ``response``, ``follow_up`` and its hook, and any failed ``http_attempt``.

A source does not log the request Claude Code sent (a transcript) or logs it whole (a wire log):
either way it is rebuilt from the internal list, by the same normalizer the live loop uses. That
is the costly part of an import, so the last normalized list is reused
(:mod:`tracer.importers.normal_cache`) and only the new messages are hashed
(:mod:`tracer.importers.body_hash`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tracer.importers.body_hash import BodyHasher
from tracer.importers.normal_cache import NormalCache
from tracer.importers.steps import StepWriter
from tracer.model.api_messages import materialize
from tracer.model.internal_messages import Message
from tracer.trace.events import (
    Event,
    FollowUpDecided,
    HttpAttempt,
    RequestSent,
    ResponseReceived,
    TurnStarted,
)
from tracer.trace.hooks import loop_turn_line, needs_follow_up_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ModelCallSteps(StepWriter):
    """Writes a model call's steps and remembers the last request, to log the next by reference."""

    def __init__(self, emit: Callable[[Event], Any]) -> None:
        super().__init__(emit)
        self.request_index = 0
        self._hasher = BodyHasher()
        self._api_cache: tuple[list[Message], int, list[Any]] | None = None
        self._normal = NormalCache()
        self._prev_api: list[Any] = []
        self._params: dict[str, Any] | None = None
        self._keys: list[str] | None = None
        self._api_count = 0

    def start_turn(self) -> None:
        self.turn += 1
        self.events += 1  # each step's event is built in place: see StepWriter._emit
        self.emit(
            TurnStarted.new(
                seq=self.events, turn=self.turn, t=self.t, message_count=len(self.messages)
            )
        )
        self._hook("loop_turn", loop_turn_line(self.turn, len(self.messages)))

    def request(
        self,
        params: dict[str, Any],
        keys: Sequence[str],
        messages: list[Message] | None = None,
        *,
        body: bool = False,
    ) -> bytes | None:
        """Resending: log the request the internal list normalizes to.

        ``keys`` is the body's key order (``messages`` among them); ``params`` the other keys.
        With ``body`` the encoded body is returned too (an API log compares it with the logged
        one); otherwise only its size and hash are computed, incrementally (:mod:`.body_hash`).
        """
        api = self._normalized(self.messages if messages is None else messages)
        prev = self._prev_api
        limit = min(len(api), len(prev))
        # The normalizer hands back the very same objects for the part of the history it kept,
        # and an object it kept stays at its place until it is normalized again, never to come
        # back: the identical messages are one run from the start. So the run is found from its
        # end, in as many steps as messages changed, not one per message of the whole history
        # (which made a long import quadratic). Past the identical run, equal messages count.
        prefix = limit
        while prefix > 0 and api[prefix - 1] is not prev[prefix - 1]:
            prefix -= 1
        while prefix < limit and (
            api[prefix].role == prev[prefix].role and api[prefix].parts == prev[prefix].parts
        ):
            prefix += 1
        key_list = list(keys)  # once: compared, logged and kept below
        changed = params != self._params or key_list != self._keys
        size, sha = self._hasher.digest(params, keys, api, prefix, self.by_uuid)
        encoded = None
        if body:
            # Only an API log asks (tracer.trace.requests, with the record it makes, is an
            # import of its own that a Claude Code import never needs).
            from tracer.trace.requests import encode_body

            wire = materialize(api, self.by_uuid)
            encoded = encode_body({k: wire if k == "messages" else params[k] for k in keys})
        self.request_index += 1
        self.events += 1
        event = RequestSent.new(
            seq=self.events,
            turn=self.turn,
            t=self.t,
            request_index=self.request_index,
            message_count=len(api),
            internal_count=len(self.messages),
            prefix_request=self.request_index - 1 if prefix else None,
            prefix_len=prefix,
            tail=[m.to_ref() for m in api[prefix:]],
            bytes=size,
            sha256=sha,
            params=params if changed else None,
            body_keys=key_list if changed else None,
        )
        self.emit(event)
        self._prev_api, self._params, self._keys = api, params, key_list
        self._api_count = len(api)
        return encoded

    def _normalized(self, messages: list[Message]) -> list[Any]:
        """The API messages of a list; the last list's are reused (appending computed them)."""
        if (
            self._api_cache is not None
            and self._api_cache[0] is messages
            and self._api_cache[1] == len(messages)
        ):
            return self._api_cache[2]
        api = self._normal.normalize(messages)
        self._api_cache = (messages, len(messages), api)
        return api

    def response(
        self,
        *,
        message_id: str,
        model: str,
        usage: dict[str, Any],
        assistant: list[Message],
        stop_reason: str | None,
        latency_ms: int | None = None,
        attempts: int = 1,
    ) -> list[dict[str, Any]]:
        """The response's messages, the response step and the follow-up decision.

        Returns the ``tool_use`` blocks (``needs_follow_up`` is true exactly when there are any,
        whatever ``stop_reason`` says, as in Claude Code).
        """
        uuids = self.record(assistant)
        self.events += 1
        self.emit(
            ResponseReceived.new(
                seq=self.events,
                turn=self.turn,
                t=self.t,
                request_index=self.request_index,
                message_id=message_id,
                model=model,
                usage=usage,
                assistant_uuids=uuids,
                stop_reason=stop_reason,
                latency_ms=latency_ms,
                attempts=attempts,
            )
        )
        uses = [b for m in assistant for b in m.tool_uses()]
        self.events += 1
        self.emit(
            FollowUpDecided.new(
                seq=self.events,
                turn=self.turn,
                t=self.t,
                needs_follow_up=bool(uses),
                tool_use_ids=[str(b.get("id")) for b in uses],
                stop_reason=stop_reason,
            )
        )
        self._hook("needs_follow_up", needs_follow_up_line(bool(uses), len(uses)))
        return uses

    def http_attempt(self, attempt: int, error: str, status: int | None = None) -> None:
        """An attempt behind the current request that gave no whole response."""
        self._emit(
            HttpAttempt,
            request_index=self.request_index,
            attempt=attempt,
            status=status,
            error=error,
        )
