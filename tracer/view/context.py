"""What one step needs from the rest of the trace, read lazily.

Steps point at messages by uuid (the trace writes each message once), so showing a step means
finding a few earlier records. Every message a step points at was written shortly before it (the
response's assistant fragments, the tool result being wrapped, the tail of a request), so we look
backwards from the step, decoding only ``message`` lines, and stop as soon as all are found. Each
step therefore costs the same whether it is step 10 or step 100,000, which is what keeps the
replay responsive on a 10,000-turn trace (Python Tutor's rule: a step must render on its own).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from tracer.model.api_messages import resolve_part
from tracer.trace.events import AnyEvent, MessageRecorded
from tracer.trace.hooks import shown_line
from tracer.trace.reader import TraceReader
from tracer.trace.tokens import tokens_of
from tracer.view.steps import StepIndex

#: How far back to look for a record before giving up: a step's records are within its turn or
#: the one before, and the bound keeps a broken trace (a dangling uuid) from stalling a keypress.
SCAN_LIMIT = 20_000
#: At most this many requests are drawn in the resending chart; longer sessions are sampled.
CHART_POINTS = 48


def find_messages(
    reader: TraceReader, uuids: Iterable[str], before: int, limit: int = SCAN_LIMIT
) -> dict[str, MessageRecorded]:
    """The ``message`` records with these uuids, nearest first, looking back from ``before``."""
    wanted = set(uuids)
    found: dict[str, MessageRecorded] = {}
    stop = max(before - limit, 0)
    for i in range(before - 1, stop - 1, -1):
        if not wanted:
            break
        if reader.kind_of(i) != "message":
            continue
        event = reader[i]
        if isinstance(event, MessageRecorded) and event.uuid in wanted:
            found[event.uuid] = event
            wanted.discard(event.uuid)
    return found


def history_before(
    reader: TraceReader, before: int, count: int, skip: Iterable[str], limit: int = 1000
) -> list[MessageRecorded]:
    """The last ``min(count, limit)`` messages recorded before ``before``, oldest first, leaving
    out the uuids in ``skip`` (the ones a step adds). The internal history is the messages in
    the order they were recorded, so this is the history a step appended to (unfolded view)."""
    leave = set(skip)
    out: list[MessageRecorded] = []
    for i in range(before - 1, -1, -1):
        if len(out) >= min(count, limit):
            break
        if reader.kind_of(i) != "message":
            continue
        event = reader[i]
        if isinstance(event, MessageRecorded) and event.uuid not in leave:
            out.append(event)
    out.reverse()
    return out


def find_back(
    reader: TraceReader,
    before: int,
    kind: str,
    test: Callable[[AnyEvent], bool] = lambda _e: True,
    limit: int = SCAN_LIMIT,
) -> AnyEvent | None:
    """The nearest earlier event of ``kind`` that passes ``test``."""
    for i in range(before - 1, max(before - limit, 0) - 1, -1):
        if reader.kind_of(i) == kind:
            event = reader[i]
            if test(event):
                return event
    return None


def find_tool_uses(reader: TraceReader, ids: Iterable[str], before: int) -> dict[str, dict]:
    """The assistant's ``tool_use`` blocks with these ids, from the messages before ``before``."""
    wanted = set(ids)
    found: dict[str, dict] = {}
    for i in range(before - 1, max(before - SCAN_LIMIT, 0) - 1, -1):
        if not wanted:
            break
        if reader.kind_of(i) != "message":
            continue
        event = reader[i]
        if not isinstance(event, MessageRecorded) or event.type != "assistant":
            continue
        for block in event.content if isinstance(event.content, list) else []:
            if block.get("type") == "tool_use" and block.get("id") in wanted:
                found[block["id"]] = block
                wanted.discard(block["id"])
    return found


def message_dict(message: MessageRecorded) -> dict[str, Any]:
    return {"type": message.type, "content": message.content, "attachment": message.attachment}


def resolve_tail(
    tail: list[dict[str, Any]], messages: dict[str, MessageRecorded]
) -> list[tuple[str, list[Any]]]:
    """A request's new API messages: ``(role, [block or string, ...])``; missing parts → None."""
    by_uuid = {uuid: message_dict(m) for uuid, m in messages.items()}
    out: list[tuple[str, list[Any]]] = []
    for ref in tail:
        blocks: list[Any] = []
        for uuid, index in ref.get("parts", []):
            try:
                blocks.append(resolve_part((uuid, index), by_uuid))
            except (KeyError, IndexError, TypeError):
                blocks.append(None)
        out.append((ref.get("role", "?"), blocks))
    return out


def tail_uuids(tail: list[dict[str, Any]]) -> list[str]:
    return [part[0] for ref in tail for part in ref.get("parts", [])]


@dataclass(frozen=True, slots=True)
class RequestPoint:
    """One request in the chart: its number, body size and input tokens (None if unknown)."""

    request_index: int
    bytes: int
    input_tokens: int | None
    """Everything the model read: input plus cache reads and writes (:mod:`tracer.trace.tokens`)."""
    current: bool = False
    cached: bool = False
    """Part of it came from (or went to) the prompt cache."""


Point = tuple[int, int, int | None, bool]
"""A request's number, body bytes, prompt tokens (the cache included) and whether the cache
had a part in it."""

#: Each index's request points, by resending step, once they can no longer change (see
#: :func:`_point`). The chart of every resending step samples requests from the whole session;
#: decoding them afresh each time cost a step a hundred random reads on a long trace.
_POINTS: WeakKeyDictionary[StepIndex, dict[int, Point]] = WeakKeyDictionary()


def _point(index: StepIndex, s: int, known: dict[int, Point]) -> Point:
    """Request number, body bytes and input tokens of resending step ``s`` (remembered in
    ``known``, the index's entry of :data:`_POINTS`)."""
    found = known.get(s)
    if found is not None:
        return found
    event = index.event(s)
    counted = None
    for look in range(s + 1, min(s + 4, len(index))):
        if index.stage(look) == "resending":
            break  # refused: the next request's response is not this one's
        if index.stage(look) == "response":
            answer = index.event(look)
            if getattr(answer, "request_index", None) in (None, getattr(event, "request_index", 0)):
                counted = tokens_of(getattr(answer, "usage", {}) or {})
            break
    found = (
        getattr(event, "request_index", 0),
        getattr(event, "bytes", 0),
        counted.prompt if counted is not None else None,
        bool(counted and (counted.cache_read or counted.cache_creation)),
    )
    if s + 4 <= len(index):  # the steps where its response could be are all published: final
        known[s] = found
    return found


def request_history(index: StepIndex, step: int, points: int = CHART_POINTS) -> list[RequestPoint]:
    """The requests sent up to ``step`` (sampled evenly to ``points``), for the growth chart.

    Input tokens come from each request's response, the step after it; a request the API
    refused has none (no tokens are charted for it).
    """
    sent = index.by_stage.get("resending")
    count = bisect_right(sent, step) if sent is not None else 0
    if sent is None or not count:
        return []
    if count > points:
        stride = (count - 1) / (points - 1)
        steps = [sent[round(k * stride)] for k in range(points)]
    else:
        steps = list(sent[:count])
    known = _POINTS.setdefault(index, {})
    out = []
    for s in steps:
        number, size, prompt, cached = _point(index, s, known)
        out.append(RequestPoint(number, size, prompt, current=s == step, cached=cached))
    return out


def debug_lines(
    index: StepIndex, step: int, keep: int = 200, lang: str = "en"
) -> tuple[int, list[str]]:
    """The ``[DEBUG]`` lines printed once ``step`` is done: (how many in all, the last ``keep``).

    A line the real 2.1.88 would not print (see :mod:`tracer.trace.hooks`) carries a note saying so.
    """
    total = index.debug_count_through(step)
    lines = []
    for k in range(max(total - keep, 0), total):
        lines.append(shown_line(index.reader[index.debug_positions[k]], lang))
    return total, lines
