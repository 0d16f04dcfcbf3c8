"""The requests a trace sent, rebuilt as they went over the wire, for the doctor's rules.

Claude Code resends the whole history with every request (``queryLoop`` in ``query.ts`` hands
``callModel`` all of it, turn after turn), with one ``cache_control`` breakpoint on the last
message (``addCacheBreakpoints``, ``src/services/api/claude.ts``). A trace records each request
as the number of messages it shares with the one before (``prefix_len``) and the tail it adds.
The rules ask what exactly each request held: which user message carried a call's result, at
which position, and whether the API's own rules held for it (:mod:`tracer.doctor.invariants`).

Requests are rebuilt here the way :func:`tracer.trace.requests.rebuild_requests` rebuilds them,
with one difference that keeps the doctor fast on long sessions: a request shares its first
``prefix_len`` messages with the one before, so those are reused (not materialized again) and
only the messages from ``prefix_len`` on, and how they join the one before, need checking
(:attr:`SentRequest.start`). :class:`SentHistory` holds the one growing list; each
:class:`SentRequest` sees it through a :class:`SharedPrefix`, so memory grows with the
conversation, not with its square. :class:`tracer.doctor.facts.TraceFacts` asks for a request at
each ``request`` record of its single pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.model.api_messages import ApiMessage, materialize, with_cache_breakpoint
from tracer.trace.events import RequestSent


class SharedPrefix(Sequence[Any]):
    """The first ``length`` items of a list that later requests go on appending to.

    Each request resends the one before plus a tail, so every request's history can be a window
    on one growing list: memory grows with the conversation, not with its square. ``last``, when
    given, stands in for the window's last item: the request's copy that carries its cache
    breakpoint (the list keeps the unmarked message the next request resends).
    """

    __slots__ = ("_items", "_last", "_length")

    def __init__(self, items: list[Any], length: int, last: Any = None) -> None:
        self._items, self._length, self._last = items, length, last

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            window = self._items[: self._length]
            if self._last is not None:
                window[-1] = self._last
            return window[i]
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(i)
        if i == self._length - 1 and self._last is not None:
            return self._last
        return self._items[i]


@dataclass(slots=True)
class SentRequest:
    """One request as it went over the wire."""

    index: int
    """Event index of its ``request`` step."""
    event: RequestSent
    api: Sequence[ApiMessage]
    """Where each message's blocks came from (message uuids)."""
    wire: Sequence[dict[str, Any]]
    """The ``messages`` array as sent (its cache breakpoint included)."""
    start: int
    """Messages before this one are the previous request's, already checked."""
    refused: str | None = None
    """The error the API answered with (HTTP 400), when it refused the request."""

    @property
    def number(self) -> int:
        return self.event.request_index

    def uuids(self, position: int) -> set[str]:
        return {uuid for uuid, _ in self.api[position].parts} if position < len(self.api) else set()


@dataclass(slots=True)
class SentHistory:
    """The messages sent so far, in both forms, that every request's window looks into."""

    api: list[ApiMessage] = field(default_factory=list)
    """Where each message's blocks came from (message uuids)."""
    wire: list[dict[str, Any]] = field(default_factory=list)
    """Each message as it went over the wire (without the request's cache breakpoint)."""

    def add(
        self,
        i: int,
        event: RequestSent,
        store: dict[str, dict[str, Any]],
        first: bool,
        path: Path | None,
    ) -> SentRequest:
        """The request of the ``request`` record at event ``i`` (line ``i + 2`` of ``path``),
        its messages from ``store`` (uuid → type, content, attachment), the history grown by its
        tail. ``first``: no request came before, so it shares nothing."""
        keep = 0 if first else event.prefix_len
        try:
            tail = [ApiMessage.from_ref(ref) for ref in event.tail]
            new_wire = materialize(tail, store)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise UserError(
                f"request {event.request_index} refers to a message the trace does "
                f"not hold ({type(exc).__name__}: {exc})",
                path,
                i + 2 if path else None,
            ) from None
        if keep < len(self.api):
            # The history was rewritten (a compaction): later requests share a fresh list.
            self.api, self.wire = self.api[:keep], self.wire[:keep]
        self.api.extend(tail)
        self.wire.extend(new_wire)
        api = SharedPrefix(self.api, len(self.api))
        marked = None
        if event.cache_control is not None and self.wire:
            marked = with_cache_breakpoint(self.wire[-1:], event.cache_control)[0]
        wire = SharedPrefix(self.wire, len(self.wire), marked)
        return SentRequest(i, event, api, wire, keep)
