"""Search through every step's content (``/`` in the app).

A step's content is its own record and the records it points at. Rather than decode every event,
we look for the query in each line's raw bytes (case-insensitive for ASCII; Chinese has no case)
and then credit each hit to the step that shows it: a ``message`` to the next step (the response
that produced it, the wrapping that made it), a ``debug_hook``, ``http_attempt_start`` or
``http_attempt`` to the step before (which it reports on), a ``tool_start`` to the next step (its
tool run).

The JSON on disk escapes newlines, quotes and backslashes, so the query is escaped the same way
before searching.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from tracer.replay.steps import StepIndex

_BACKWARD_KINDS = {"debug_hook", "http_attempt_start", "http_attempt"}


def _needle(query: str) -> bytes:
    escaped = json.dumps(query, ensure_ascii=False)[1:-1]
    return escaped.lower().encode("utf-8")


def search_steps(index: StepIndex, query: str,
                 cancelled: Callable[[], bool] = lambda: False) -> list[int]:
    """The steps (0-based, ascending, unique) whose content contains ``query``."""
    if not query.strip() or not len(index):
        return []
    needle = _needle(query)
    reader = index.reader
    hits: set[int] = set()
    last = index.positions[-1]
    for i in range(min(len(reader), last + 1)):
        if i % 4096 == 0 and cancelled():
            return []
        if needle not in reader.raw(i).lower():
            continue
        kind = reader.kind_of(i)
        if kind in _BACKWARD_KINDS:
            hits.add(index.step_at_or_before(i))
        else:
            hits.add(index.step_at_or_after(i))
    return sorted(hits)


def next_match(matches: list[int], step: int, forward: bool = True) -> int | None:
    """The match after (or before) ``step``, wrapping round; None when there are none."""
    if not matches:
        return None
    if forward:
        return next((m for m in matches if m > step), matches[0])
    return next((m for m in reversed(matches) if m < step), matches[-1])
