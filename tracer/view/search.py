"""Search through every step (``/`` in the app).

By default the search looks at what the reader sees: each step rendered as the step view shows
it, in the current language (labels such as 翻译, block text, ``"is_error": true``), plus the
``[DEBUG]`` lines the step printed. So a phrase copied from the screen finds its step, and every
hit is visible where the search lands (:func:`search_rendered`). It renders every step, so it runs
in a worker thread with a reader of its own, and reports its progress.

A query starting with ``raw:`` searches the trace's JSON lines instead (:func:`search_steps`),
which is faster on a huge trace and finds what no view prints. A step's content is its own record
and the records it points at. Rather than decode every event,
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
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from tracer.view.steps import StepIndex

#: A query with this prefix searches the raw JSON lines.
RAW_PREFIX = "raw:"
#: How often the rendered search reports progress, in steps.
PROGRESS_EVERY = 500

#: How a hit is lit in the step view, the chapter panel and the debug console.
HIT = "bold black on #ff9e3d"

_BACKWARD_KINDS = {"debug_hook", "http_attempt_start", "http_attempt"}


def _needle(query: str) -> bytes:
    escaped = json.dumps(query, ensure_ascii=False)[1:-1]
    return escaped.lower().encode("utf-8")


def search_steps(
    index: StepIndex, query: str, cancelled: Callable[[], bool] = lambda: False
) -> list[int]:
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


def pattern(query: str) -> re.Pattern[str] | None:
    """The query as a case-insensitive pattern for highlighting (None for an empty query)."""
    text = query.removeprefix(RAW_PREFIX).strip() if query.startswith(RAW_PREFIX) else query
    return re.compile(re.escape(text), re.IGNORECASE) if text.strip() else None


@dataclass(frozen=True)
class Highlight:
    """The search every panel lights: its ``query`` and the function that lights its hits in a
    Rich text (one per query, so a panel can keep what it drew for it); the default lights
    nothing."""

    query: str = ""
    light: Callable[[Text], Text] | None = None


def lighter(query: str) -> Callable[[Text], Text] | None:
    """A function that lights every hit of ``query`` in a Rich text (None: nothing to light)."""
    found = pattern(query)
    if found is None:
        return None

    def light(text: Text) -> Text:
        text.highlight_regex(found, HIT)
        return text

    return light


def position(matches: list[int], step: int) -> tuple[int, bool]:
    """Where ``step`` stands among ``matches``: (1-based hit number, on the hit itself).

    Off a hit, the number is the last hit before the step (0 before the first), as less counts."""
    before = sum(1 for m in matches if m <= step)
    return before, step in matches


def step_text(index: StepIndex, step: int, lang: str) -> str:
    """What the reader sees of ``step``: the step view and the debug lines it printed."""
    from tracer.view.render import render_step

    text = render_step(index, step, lang).plain
    first = index.debug_count_through(step - 1) if step else 0
    lines = [
        str(getattr(index.reader[index.debug_positions[k]], "line", ""))
        for k in range(first, index.debug_count_through(step))
    ]
    return text + "\n" + "\n".join(lines)


def search_rendered(
    path: Path,
    query: str,
    lang: str,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], None] = lambda _done, _total: None,
) -> list[int]:
    """The steps whose rendered text (in ``lang``) contains ``query``, ignoring case.

    Opens ``path`` with a reader of its own, so it can run in a thread beside the screen's.
    """
    from tracer.trace.reader import TraceReader

    if not query.strip():
        return []
    needle = query.casefold()
    with TraceReader(path) as reader:
        index = StepIndex(reader)
        hits = []
        for step in range(len(index)):
            if step % PROGRESS_EVERY == 0:
                if cancelled():
                    return []
                progress(step, len(index))
            if needle in step_text(index, step, lang).casefold():
                hits.append(step)
    return hits
