"""A trace, digested once for every rule: steps, tool calls, results and the requests as sent.

The rules ask the same questions again and again: which step is event *i* (numbered as ``tracer
show`` numbers them), which tool calls did a response ask for, which user message wrapped a
call's result, and what exactly did each request hold. :class:`TraceFacts` answers them from one
pass over the events.

Requests are rebuilt the way :func:`tracer.trace.requests.rebuild_requests` rebuilds them, with
one difference that keeps the doctor fast on long sessions: a request shares its first
``prefix_len`` messages with the one before, so those are reused (not materialized again) and only
the messages from ``prefix_len`` on, and how they join the one before, need checking
(:attr:`SentRequest.start`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.doctor.finding import RULES, Finding
from tracer.doctor.hints import hint_for
from tracer.errors import UserError
from tracer.model.api_messages import ApiMessage, materialize, with_cache_breakpoint
from tracer.trace.events import (
    STEP_KINDS,
    HttpAttempt,
    ImportNote,
    MessageRecorded,
    RequestSent,
    ResponseReceived,
    ResultMapped,
    ResultWrapped,
    SessionEnded,
    ToolFinished,
)


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One ``tool_use`` block of a response."""

    id: str
    name: str
    input: Any
    response_index: int
    """Event index of the ``response`` step that asked for it."""
    turn: int


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


@dataclass
class TraceFacts:
    """Everything the rules need to know about one trace."""

    events: list[Any]
    path: Path | None = None
    steps: list[int] = field(default_factory=list)
    """For each event, its step number (or the number of the last step before it)."""
    messages: dict[str, MessageRecorded] = field(default_factory=dict)
    tool_uses: list[ToolUse] = field(default_factory=list)
    mapped: dict[str, int] = field(default_factory=dict)
    """tool_use id → event index of its ``mapping`` step."""
    wrapped: dict[str, ResultWrapped] = field(default_factory=dict)
    wrapped_index: dict[str, int] = field(default_factory=dict)
    by_message: dict[str, str] = field(default_factory=dict)
    """uuid of a wrapped result message → the tool_use id it answers."""
    requests: list[SentRequest] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    """Event indexes of the ``terminal`` steps (an imported session may hold several queries)."""
    explained: set[str] = field(default_factory=set)
    """tool ids whose trouble a more specific rule already reported (api-invariants skips them)."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """tool_use id → what its tool returned (``tool_run``'s output), for the repeat rule."""
    import_topics: set[str] = field(default_factory=set)
    """Topics of the ``import_note`` records: what an import said about gaps in its source."""
    history_answers: set[str] = field(default_factory=set)
    """Results that answer a call the source file never held: it continues a conversation that
    starts in another file (the ``missing_history`` note). Their pairing is the file's gap."""
    _api: list[ApiMessage] = field(default_factory=list, repr=False)
    _wire: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @classmethod
    def build(cls, events: Iterable[Any], path: Path | None = None) -> TraceFacts:
        facts = cls(events=list(events), path=path)
        facts._scan()
        return facts

    # -- the single pass -----------------------------------------------------------------------

    def _scan(self) -> None:
        step = 0
        store: dict[str, dict[str, Any]] = {}
        for i, event in enumerate(self.events):
            kind = getattr(event, "kind", None)
            if kind in STEP_KINDS:  # counted exactly as `tracer show` counts steps
                step += 1
            self.steps.append(step)
            if isinstance(event, MessageRecorded):
                self.messages[event.uuid] = event
                store[event.uuid] = {
                    "type": event.type,
                    "content": event.content,
                    "attachment": event.attachment,
                }
            elif isinstance(event, ResponseReceived):
                self._note_tool_uses(i, event)
            elif isinstance(event, ResultMapped):
                self.mapped.setdefault(event.tool_use_id, i)
                self.outputs.setdefault(event.tool_use_id, event.block.get("content"))
            elif isinstance(event, ToolFinished):
                self.outputs[event.tool_use_id] = event.output
            elif isinstance(event, ImportNote):
                self.import_topics.add(event.topic)
                if event.topic == "missing_history" and isinstance(event.data, dict):
                    answers = event.data.get("answers")
                    if isinstance(answers, list):
                        self.history_answers.update(str(a) for a in answers)
                        self.explained.update(str(a) for a in answers)
            elif isinstance(event, ResultWrapped):
                self.wrapped.setdefault(event.tool_use_id, event)
                self.wrapped_index.setdefault(event.tool_use_id, i)
                self.by_message[event.message_uuid] = event.tool_use_id
            elif isinstance(event, RequestSent):
                self._note_request(i, event, store)
            elif isinstance(event, HttpAttempt):
                self._note_attempt(event)
            elif isinstance(event, SessionEnded):
                self.ends.append(i)
        self._note_refusal_from_end()

    def _note_tool_uses(self, i: int, event: ResponseReceived) -> None:
        for uuid in event.assistant_uuids:
            message = self.messages.get(uuid)
            content = message.content if message is not None else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self.tool_uses.append(
                        ToolUse(
                            str(block.get("id")),
                            str(block.get("name")),
                            block.get("input"),
                            i,
                            event.turn,
                        )
                    )

    def _note_request(self, i: int, event: RequestSent, store: dict[str, dict[str, Any]]) -> None:
        previous = self.requests[-1] if self.requests else None
        keep = event.prefix_len if previous is not None else 0
        try:
            tail = [ApiMessage.from_ref(ref) for ref in event.tail]
            new_wire = materialize(tail, store)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise UserError(
                f"request {event.request_index} refers to a message the trace does "
                f"not hold ({type(exc).__name__}: {exc})",
                self.path,
                i + 2 if self.path else None,
            ) from None
        if keep < len(self._api):
            # The history was rewritten (a compaction): later requests share a fresh list.
            self._api, self._wire = self._api[:keep], self._wire[:keep]
        self._api.extend(tail)
        self._wire.extend(new_wire)
        api = SharedPrefix(self._api, len(self._api))
        marked = None
        if event.cache_control is not None and self._wire:
            marked = with_cache_breakpoint(self._wire[-1:], event.cache_control)[0]
        wire = SharedPrefix(self._wire, len(self._wire), marked)
        self.requests.append(SentRequest(i, event, api, wire, keep))

    def _note_attempt(self, event: HttpAttempt) -> None:
        for request in reversed(self.requests):
            if request.number == event.request_index:
                if event.status == 400:
                    request.refused = event.error or "HTTP 400"
                return

    def _note_refusal_from_end(self) -> None:
        """A session ended by an HTTP 400 was refused on its last request, whatever the attempt
        records say (a trace may keep only retried attempts)."""
        for index in self.ends:
            end = self.events[index]
            position = bisect.bisect_left(self.requests, index, key=lambda r: r.index)
            if end.reason != "model_error" or position == 0:
                continue
            request = self.requests[position - 1]
            if (end.error or "").startswith("400") and request.refused is None:
                request.refused = end.error

    # -- questions the rules ask ---------------------------------------------------------------

    def step(self, index: int) -> int:
        return (
            self.steps[index]
            if 0 <= index < len(self.steps)
            else (self.steps[-1] if self.steps else 0)
        )

    def turn(self, index: int) -> int:
        if 0 <= index < len(self.events):
            return int(getattr(self.events[index], "turn", 0) or 0)
        return 0

    def finding(
        self,
        rule: str,
        index: int,
        message: str,
        zh: str,
        hint: dict[str, str] | None = None,
    ) -> Finding:
        """A finding of ``rule`` pointing at event ``index`` (its step and turn).

        ``message`` and ``zh`` say the same thing in English and Chinese; ``hint`` replaces the
        rule's "how to check" text when this finding needs a more precise one.
        """
        return Finding(
            rule=rule,
            severity=RULES[rule],
            step=self.step(index),
            turn=self.turn(index),
            message=" ".join(message.split()),
            hint=hint or hint_for(rule),
            message_zh=zh.strip(),
        )

    def next_request(self, after: int) -> SentRequest | None:
        """The first request sent after event ``after`` (requests are in event order)."""
        position = bisect.bisect_right(self.requests, after, key=lambda r: r.index)
        return self.requests[position] if position < len(self.requests) else None

    def end_after(self, index: int) -> int | None:
        """The first ``terminal`` step after event ``index``."""
        position = bisect.bisect_right(self.ends, index)
        return self.ends[position] if position < len(self.ends) else None

    def segment(self, end: int) -> range:
        """The events of the query that ``terminal`` step ``end`` closed."""
        position = self.ends.index(end)
        return range(self.ends[position - 1] + 1 if position else 0, end + 1)

    def result_index(self, tool_use_id: str) -> int | None:
        """Where a call's result was made: its mapping step, else its wrapping step."""
        return self.mapped.get(tool_use_id, self.wrapped_index.get(tool_use_id))

    def first_request_with(self, uuid: str) -> SentRequest | None:
        for request in self.requests:
            if any(uuid == u for message in request.api[request.start :] for u, _ in message.parts):
                return request
        return None

    def follow_up_after(self, index: int) -> int:
        """The ``follow_up`` step that decided on the response at ``index`` (else ``index``)."""
        for i in range(index + 1, len(self.events)):
            kind = getattr(self.events[i], "kind", None)
            if kind == "follow_up":
                return i
            if kind in ("response", "turn_start", "terminal"):
                break
        return index

    def user_messages(self) -> Iterator[tuple[int, MessageRecorded]]:
        for i, event in enumerate(self.events):
            if isinstance(event, MessageRecorded) and event.type == "user":
                yield i, event
