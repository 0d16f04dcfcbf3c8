"""Normalizing a growing message list without starting from the first message every time.

Before every call the importer turns the internal list into API messages exactly as the live loop
does (:func:`~tracer.model.api_messages.normalize_messages_for_api`, Claude Code's
``normalizeMessagesForAPI``). The list only grows between calls, and normalizing never reaches
back across a point where a real assistant message is followed by a user message: fragments merge
only with their own neighbours of the same role, and attachments move up only past plain user
messages, stopping at an assistant message. So the API messages up to the last such *cut* are
kept, and only the rest is normalized again. The result is the same list the full function
returns; a test checks it on every call of a real session.

A list that ends with user messages (tool results, before the next call) has no cut after them
yet: the next user message would merge into their API message. But if what comes next is an
assistant message that reaches the API, nothing can: so the end of the last list is kept as a
*pending* cut, taken when the next list goes on with such a message. Without it every call
normalized the last call's tool results again.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracer.model.api_messages import ApiMessage, normalize_messages_for_api
from tracer.model.internal_messages import Message


def _cut_after(m: Message) -> bool:
    """A list may be cut after ``m`` if ``m`` is an assistant message that reaches the API."""
    return m.type == "assistant" and m.origin != "synthetic"


class NormalCache:
    """``normalize(messages)`` for a list that mostly grows at its end."""

    def __init__(self) -> None:
        # The first message and the one just before the cut are all a later call needs to know
        # that it extends the same list: holding a copy of the whole list would cost a copy of
        # the whole history on every call, and make a long import quadratic.
        self._first: Message | None = None
        self._at_cut: Message | None = None
        self._api: list[ApiMessage] = []
        self._cut = 0
        """Messages ``[:cut]`` normalize to ``api[:api_cut]``, and nothing after can change that."""
        self._api_cut = 0
        self._end: Message | None = None
        """The last list's last message, if its last API message is a user one: the pending cut."""
        self._end_cut = 0
        self._end_api_cut = 0

    def normalize(self, messages: Sequence[Message]) -> list[ApiMessage]:
        cut, api_cut = self._cut, self._api_cut
        same = len(messages) >= cut and (
            cut == 0 or (messages[cut - 1] is self._at_cut and messages[0] is self._first)
        )
        if not same:
            cut, api_cut = 0, 0
        tail = None
        end = self._end_cut
        if (  # the pending cut: the last list, then (perhaps) an assistant message
            same
            and end > cut
            and len(messages) > end
            and messages[end - 1] is self._end
            and messages[0] is self._first
            and messages[end].type == "assistant"
        ):
            tail = normalize_messages_for_api(messages[end:])
            # Taken if that message reached the API (not a notice, not only blank text): then
            # it opened the tail's first API message, and nothing after it reaches back.
            if tail and tail[0].role == "assistant" and tail[0].parts[0][0] == messages[end].uuid:
                cut, api_cut = end, self._end_api_cut
            else:
                tail = None
        if tail is None:
            tail = normalize_messages_for_api(messages[cut:])
        # The kept prefix is shared, never changed: normalizing the tail builds new objects.
        api = [*self._api[:api_cut], *tail] if cut else tail
        self._api = api
        self._cut, self._api_cut = self._find_cut(messages, cut, api_cut, api)
        self._first = messages[0] if messages else None
        self._at_cut = messages[self._cut - 1] if self._cut else None
        # A user API message last: no assistant piece is waiting for a same-id sibling.
        pending = bool(api) and api[-1].role == "user"
        self._end = messages[-1] if pending else None
        self._end_cut, self._end_api_cut = (len(messages), len(api)) if pending else (0, 0)
        # A fresh list every call, never changed afterwards (the next call builds its own), so
        # it is handed out as it is: callers keep it as "the previous request".
        return api

    def _find_cut(
        self, messages: Sequence[Message], cut: int, api_cut: int, api: list[ApiMessage]
    ) -> tuple[int, int]:
        """The last place (after ``cut``) where an assistant message is followed by a user one,
        the two lie in different API messages, and a later API message has closed the
        assistant's."""
        best = (cut, api_cut)
        position: dict[str, int] = {}
        k: int | None  # an API message's index; below, the one a message lies in, if any
        for k in range(api_cut, len(api)):
            for uuid, _ in api[k].parts:
                position.setdefault(uuid, k)
        for j in range(len(messages) - 1, cut, -1):
            before, after = messages[j - 1], messages[j]
            if not _cut_after(before) or after.type == "assistant":
                continue
            k = position.get(before.uuid)
            if (
                k is not None
                and api[k].role == "assistant"
                # Another API message must have closed it: until one does, a later piece with
                # the same id still merges into it, across messages that send nothing (an
                # empty user message, an attachment without text).
                and k + 1 < len(api)
                and all(position.get(m.uuid, k + 1) > k for m in messages[j:])
            ):
                return j, k + 1
            break
        return best


def same_as_full(messages: Sequence[Message], cache: NormalCache) -> bool:
    """For tests: the cached normalization equals the full one."""
    full = normalize_messages_for_api(messages)
    fast = cache.normalize(messages)
    return [(a.role, a.parts) for a in full] == [(a.role, a.parts) for a in fast]
