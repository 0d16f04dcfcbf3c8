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

The pending cut is taken on nearly every call of a session (the answer follows the tool results),
so the last list's own cut is looked for only when it is not: the messages the last call
normalized are kept, and :meth:`NormalCache._last_cut` finds the cut among them then. Found on
every call, it was a quarter of what normalizing cost, thrown away nearly every time.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_

from tracer.model.api_messages import ApiMessage, normalize_messages_for_api
from tracer.model.internal_messages import Message


def _cut_after(m: Message) -> bool:
    """A list may be cut after ``m`` if ``m`` is an assistant message that reaches the API."""
    return m.type == "assistant" and m.origin != "synthetic"


class NormalCache:
    """``normalize(messages)`` for a list that mostly grows at its end."""

    def __init__(self) -> None:
        # What the last call normalized, and the first message and the one just before it: all
        # a later call needs to know that it extends the same list (holding a copy of the whole
        # list would cost a copy of the whole history on every call, and make a long import
        # quadratic).
        self._first: Message | None = None
        self._api: list[ApiMessage] = []
        self._start = 0
        self._api_start = 0
        """The last list's messages ``[:start]`` gave ``api[:api_start]`` (a cut, or 0)."""
        self._before: Message | None = None
        """The last list's message just before ``start``."""
        self._normalized: Sequence[Message] = ()
        """The last list's messages from ``start`` on: what the last call normalized."""

    def normalize(self, messages: Sequence[Message]) -> list[ApiMessage]:
        end = self._start + len(self._normalized)  # the last list's length
        tail = None
        if (  # the pending cut: the last list, ending with a user API message, then an assistant
            self._api
            and self._api[-1].role == "user"
            and end > self._start
            and len(messages) > end
            and messages[end].type == "assistant"
            and self._extends(messages)
        ):
            rest = messages[end:]
            tail = normalize_messages_for_api(rest)
            # Taken if that message reached the API (not a notice, not only blank text): then
            # it opened the tail's first API message, and nothing after it reaches back.
            if tail and tail[0].role == "assistant" and tail[0].parts[0][0] == messages[end].uuid:
                cut, api_cut = end, len(self._api)
            else:
                tail = None
        if tail is None:
            cut, api_cut = self._last_cut(messages)
            rest = messages[cut:]
            tail = normalize_messages_for_api(rest)
        # The kept prefix is shared, never changed: normalizing the tail builds new objects.
        api = [*self._api[:api_cut], *tail] if cut else tail
        self._api = api
        self._first = messages[0] if messages else None
        self._start, self._api_start = cut, api_cut
        self._before = messages[cut - 1] if cut else None
        self._normalized = rest
        # A fresh list every call, never changed afterwards (the next call builds its own), so
        # it is handed out as it is: callers keep it as "the previous request".
        return api

    def _extends(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` begins with the last list: its first message, the one before
        what the last call normalized and every message it normalized are still there."""
        start = self._start
        return (
            messages[0] is self._first
            and (start == 0 or messages[start - 1] is self._before)
            and all(map(is_, messages[start : start + len(self._normalized)], self._normalized))
        )

    def _last_cut(self, messages: Sequence[Message]) -> tuple[int, int]:
        """The last list's cut, if ``messages`` still holds the last list's messages up to it
        (the cut's message and the first are still there); else ``(0, 0)``: start afresh."""
        cut, api_cut = self._find_cut()
        if cut == 0:
            return 0, 0
        start = self._start
        at_cut = self._normalized[cut - start - 1] if cut > start else self._before
        if len(messages) >= cut and messages[cut - 1] is at_cut and messages[0] is self._first:
            return cut, api_cut
        return 0, 0

    def _find_cut(self) -> tuple[int, int]:
        """The last place in the last list (after ``start``) where an assistant message is
        followed by a user one, the two lie in different API messages, and a later API message
        has closed the assistant's; ``start`` itself if there is none."""
        start, api_start, rest, api = self._start, self._api_start, self._normalized, self._api
        position: dict[str, int] = {}
        k: int | None  # an API message's index; below, the one a message lies in, if any
        for k in range(api_start, len(api)):
            for uuid, _ in api[k].parts:
                position.setdefault(uuid, k)
        for j in range(len(rest) - 1, 0, -1):
            before, after = rest[j - 1], rest[j]
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
                and all(position.get(m.uuid, k + 1) > k for m in rest[j:])
            ):
                return start + j, k + 1
            break
        return start, api_start


def same_as_full(messages: Sequence[Message], cache: NormalCache) -> bool:
    """For tests: the cached normalization equals the full one."""
    full = normalize_messages_for_api(messages)
    fast = cache.normalize(messages)
    return [(a.role, a.parts) for a in full] == [(a.role, a.parts) for a in fast]
