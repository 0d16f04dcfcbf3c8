"""Resending: the whole history goes out again, every turn, as Claude Code really sends it.

The loop's second step (:mod:`tracer.agent.loop`), the chapter's 重新发送. Mirrors the request
half of the ``callModel`` call in Claude Code's ``src/query.ts``: on its way to the API,
``src/services/api/claude.ts`` runs ``normalizeMessagesForAPI`` on the internal list and then
``ensureToolResultPairing`` (:func:`tracer.model.pairing.ensure_tool_result_pairing`), which answers
any unanswered ``tool_use`` with a made-up ``is_error`` result (first in its user message) and
strips any orphan ``tool_result`` (a user message left empty goes out as ``(no content)``),
and ``addCacheBreakpoints``, which puts its one ``cache_control`` breakpoint on the last block of
the newest message (the request's copy only: the breakpoint moves every turn), before the body is
streamed through the one seam to the SDK (:class:`~tracer.agent.model.ModelSeam`). The API keeps
no state between calls, so each request carries everything; the breakpoint tells it that all up
to there may be read from its prompt cache next time.

Every request is written to the trace as a ``request`` event that names the request whose
messages it starts with and lists only the new tail (``prefix_request``, ``prefix_len``,
``tail``), by reference to messages already in the trace; the body's other keys are written only
when they change. The trace reader rebuilds each body byte for byte from that
(:mod:`tracer.trace.requests`). Each HTTP attempt beyond a clean first one is an event too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tracer.agent.attempts import Attempt
from tracer.agent.model import ModelError, ModelSeam, StreamedResponse, sha256
from tracer.model.api_messages import (
    CACHE_CONTROL,
    ApiMessage,
    materialize,
    normalize_messages_for_api,
    with_cache_breakpoint,
)
from tracer.model.internal_messages import (
    NO_CONTENT_MESSAGE,
    Message,
    create_user_message,
    synthetic_tool_result_block,
)
from tracer.model.pairing import ensure_tool_result_pairing
from tracer.trace.events import Event, HttpAttempt, HttpAttemptStarted, RequestSent


@dataclass
class _RequestLog:
    """What the previous request held, so the next one is stored as "same prefix + new tail"."""

    index: int = 0
    refs: list[dict[str, Any]] = field(default_factory=list)
    params: dict[str, Any] | None = None
    body_keys: list[str] | None = None


class Resender:
    """Sends one session's requests; the loop sets :attr:`turn` at the top of each turn."""

    def __init__(
        self,
        *,
        seam: ModelSeam,
        emit: Callable[[Event], Any],
        new_uuid: Callable[[], str],
        by_uuid: dict[str, Message],
        record: Callable[[Message], None],
        send_unpatched: bool = False,
    ) -> None:
        self.seam = seam
        self.emit = emit
        self.new_uuid = new_uuid
        self.by_uuid = by_uuid
        """The loop's messages by uuid (shared, not copied): what a request's parts point at."""
        self.record = record
        """The loop's way to put a made-up message in the trace and in :attr:`by_uuid`."""
        self.send_unpatched = send_unpatched
        """Send the first request the pairing check patches once unpatched too, to show what
        the bare API answers (a fault scenario's ``send_unpatched``)."""
        self.turn = 0
        self._log = _RequestLog()
        self._synthetic: dict[str, Message] = {}
        self._no_content: Message | None = None
        self._unpatched_sent = False

    @property
    def request_index(self) -> int:
        """The number of the last request sent (1 for the first)."""
        return self._log.index

    def _emit(self, cls: type[Event], **fields: Any) -> Any:
        return self.emit(cls(turn=self.turn, **fields))

    def call_model(self, messages: list[Message]) -> StreamedResponse:
        """Send the whole history ``messages`` and stream the answer (query.ts's ``callModel``).

        The request is the internal list normalized for the API, then patched by the pairing
        check: the patch goes out, the internal list keeps its hole.
        """
        api_messages = normalize_messages_for_api(messages)
        patched, repair = ensure_tool_result_pairing(
            api_messages, self.by_uuid, self._synthetic_result, self._no_content_message
        )
        if not repair.changed:
            return self._send(api_messages, len(messages), None)
        pairing: dict[str, Any] = repair.to_json()
        if self.send_unpatched and not self._unpatched_sent:
            # Show both answers: the bare API's to the request as the loop built it, then the
            # one to the request Claude Code really sends.
            self._unpatched_sent = True
            try:
                return self._send(api_messages, len(messages), None)
            except ModelError as exc:
                if not str(exc).startswith("400"):
                    raise  # not the API judging the request: nothing to compare
            pairing["unpatched_request"] = self._log.index
        return self._send(patched, len(messages), pairing)

    def _synthetic_result(self, tool_use_id: str, assistant_uuid: str) -> Message:
        """The user message that holds the made-up result for ``tool_use_id``: made and recorded
        once, so every later request points at the same block (the internal list never gets
        it; only requests do)."""
        message = self._synthetic.get(tool_use_id)
        if message is None:
            message = create_user_message(
                [synthetic_tool_result_block(tool_use_id)],
                new_uuid=self.new_uuid,
                source_tool_assistant_uuid=assistant_uuid,
                origin="synthetic",
            )
            self._synthetic[tool_use_id] = message
            self.record(message)
        return message

    def _no_content_message(self) -> Message:
        """The ``(no content)`` user message that stands in for one stripping emptied
        (``NO_CONTENT_MESSAGE``, ``isMeta``, as 2.1.88 makes it): made and recorded once."""
        if self._no_content is None:
            self._no_content = create_user_message(
                NO_CONTENT_MESSAGE, new_uuid=self.new_uuid, is_meta=True, origin="synthetic"
            )
            self.record(self._no_content)
        return self._no_content

    def _send(
        self, api_messages: list[ApiMessage], internal_count: int, pairing: dict[str, Any] | None
    ) -> StreamedResponse:
        # The cache breakpoint goes on the body only (a copy of the last block): the history
        # and the trace's stored messages stay as they were, and the next request moves it.
        body_messages = with_cache_breakpoint(materialize(api_messages, self.by_uuid))
        logged = False

        def started(number: int, body: bytes, streaming: bool) -> None:
            # Written as the attempt begins, so a trace cut short shows what was in flight.
            nonlocal logged
            if not logged:
                self._log_request(api_messages, internal_count, body, pairing)
                logged = True
            self._emit(
                HttpAttemptStarted,
                request_index=self._log.index,
                attempt=number,
                timeout=self.seam.timeout,
                streaming=None if streaming else False,
            )

        def ended(number: int, attempt: Attempt) -> None:
            # A clean first attempt says nothing the response step does not.
            if number > 1 or attempt.error:
                self._emit(
                    HttpAttempt,
                    request_index=self._log.index,
                    attempt=number,
                    status=attempt.status,
                    error=attempt.error,
                )

        try:
            return self.seam.stream(body_messages, started, ended)
        except ModelError:
            if not logged:
                self._log_request(api_messages, internal_count, None, pairing)
            raise

    def _log_request(
        self,
        api_messages: list[ApiMessage],
        internal_count: int,
        body: bytes | None,
        pairing: dict[str, Any] | None = None,
    ) -> None:
        log = self._log
        refs = [m.to_ref() for m in api_messages]
        prefix = 0
        while prefix < min(len(refs), len(log.refs)) and refs[prefix] == log.refs[prefix]:
            prefix += 1
        params, keys = _split_body(body)
        changed = params != log.params or keys != log.body_keys
        log.index += 1
        self._emit(
            RequestSent,
            request_index=log.index,
            message_count=len(refs),
            internal_count=internal_count,
            prefix_request=log.index - 1 if prefix else None,
            prefix_len=prefix,
            tail=refs[prefix:],
            bytes=len(body or b""),
            sha256=sha256(body or b""),
            params=params if changed else None,
            body_keys=keys if changed else None,
            pairing=pairing,
            cache_control=CACHE_CONTROL if refs else None,
        )
        log.refs, log.params, log.body_keys = refs, params, keys


def _split_body(body: bytes | None) -> tuple[dict[str, Any] | None, list[str] | None]:
    """The body without ``messages``, and its key order (for the byte-for-byte rebuild)."""
    if not body:
        return None, None
    data = json.loads(body)
    return {k: v for k, v in data.items() if k != "messages"}, list(data)
