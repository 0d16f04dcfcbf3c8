"""Normalizing a growing message list without starting from the first message every time.

Before every call the importer turns the internal list into API messages exactly as the live loop
does (:func:`~tracer.agent.messages.normalize_messages_for_api`, Claude Code's
``normalizeMessagesForAPI``). The list only grows between calls, and normalizing never reaches
back across a point where a real assistant message is followed by a user message: fragments merge
only with their own neighbours of the same role, and attachments move up only past plain user
messages, stopping at an assistant message. So the API messages up to the last such *cut* are
kept, and only the rest is normalized again. The result is the same list the full function
returns; a test checks it on every call of a real session.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracer.agent.messages import ApiMessage, Message, normalize_messages_for_api


def _cut_after(m: Message) -> bool:
    """A list may be cut after ``m`` if ``m`` is an assistant message that reaches the API."""
    return m.type == "assistant" and m.origin != "synthetic"


class NormalCache:
    """``normalize(messages)`` for a list that mostly grows at its end."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._api: list[ApiMessage] = []
        self._cut = 0
        """Messages ``[:cut]`` normalize to ``api[:api_cut]``, and nothing after can change that."""
        self._api_cut = 0

    def normalize(self, messages: Sequence[Message]) -> list[ApiMessage]:
        cut, api_cut = self._cut, self._api_cut
        same = len(messages) >= cut and (
            cut == 0
            or (messages[cut - 1] is self._messages[cut - 1] and messages[0] is self._messages[0])
        )
        if not same:
            cut, api_cut = 0, 0
        tail = normalize_messages_for_api(messages[cut:])
        # The kept prefix is shared, never changed: normalizing the tail builds new objects.
        api = [*self._api[:api_cut], *tail] if cut else tail
        self._messages = list(messages)
        self._api = api
        self._cut, self._api_cut = self._find_cut(messages, cut, api_cut, api)
        return list(api)

    def _find_cut(
        self, messages: Sequence[Message], cut: int, api_cut: int, api: list[ApiMessage]
    ) -> tuple[int, int]:
        """The last place (after ``cut``) where an assistant message is followed by a user one
        and the two lie in different API messages."""
        best = (cut, api_cut)
        position: dict[str, int] = {}
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
                and k + 1 <= len(api)
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
