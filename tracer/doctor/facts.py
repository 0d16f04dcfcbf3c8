"""A trace, digested once for every rule: steps, tool calls, results and the requests as sent.

The rules ask the same questions again and again: which step is event *i* (numbered as ``tracer
show`` numbers them), which tool calls did a response ask for, which user message wrapped a
call's result, and what exactly did each request hold. :class:`TraceFacts` answers them from one
pass over the events.

The requests are rebuilt as they went over the wire by :mod:`tracer.doctor.sent_requests`, each
sharing with the one before the messages they have in common.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.doctor.finding import RULES, Finding
from tracer.doctor.hints import hint_for
from tracer.doctor.sent_requests import SentHistory, SentRequest
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
    _sent: SentHistory = field(default_factory=SentHistory, repr=False)

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
        first = not self.requests
        self.requests.append(self._sent.add(i, event, store, first, self.path))

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
