"""The page's meta: what it knows of the whole trace, read at once before any step is drawn.

:func:`tracer.export.html.payload.build` writes a page's data in two parts: the steps, in chunks,
and the meta beside them. This module makes the meta's columns that are not a chapter panel
(those are :mod:`tracer.export.html.chapter`'s), each kept small, so that opening the page costs
the same on a trace of ten steps or ten thousand:

- the requests for the token chart (:func:`request_rows`): one row per request sent, its bytes
  and its input tokens as the response's ``usage`` counted them, sampled on a long session as
  the replay samples its own chart;
- per-step values coded short: by stage, with the few steps that differ (:func:`by_stage`), or
  as runs (:func:`run_lengths`: a step's turn; :mod:`tracer.export.html.beside` codes its rows'
  turns the same way);
- the subagent loops (:func:`loops_of`), each with what its ``Task``/``Agent`` call asked of it,
  the ``description`` Claude Code shows on the call's progress line;
- the doctor's findings, each with its step (:func:`findings_of`, through
  :mod:`tracer.view.diagnose`, the replay's own reaction to them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracer.text.printable import printable
from tracer.trace.reader import TraceReader
from tracer.trace.tokens import tokens_of
from tracer.view.cursor import steps_of
from tracer.view.i18n import LANGS
from tracer.view.nesting import Nesting
from tracer.view.steps import StepIndex


def request_tokens(index: StepIndex, step: int) -> dict[str, int] | None:
    """The token counts of the request sent at resending ``step``, from its response's usage,
    as :func:`tracer.trace.tokens.tokens_of` counts them (the same accounting as ``show`` and
    the replay); ``None`` where the trace recorded no count (the page draws no estimate)."""
    for look in range(step + 1, min(step + 4, len(index))):
        if index.stage(look) == "response":
            tokens = tokens_of(getattr(index.event(look), "usage", None) or {})
            if tokens is None or tokens.estimated:
                return None
            found = {
                "input_tokens": tokens.input,
                "cache_read_input_tokens": tokens.cache_read,
                "cache_creation_input_tokens": tokens.cache_creation,
                "output_tokens": tokens.output,
            }
            return found
    return None


#: The chart draws about 60 bars; a long session's requests are sampled to this many rows.
CHART_ROWS = 600
TOKEN_KEYS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def request_rows(index: StepIndex) -> dict[str, list[Any]]:
    """The requests for the chart, as columns: step, request number, bytes, and the input
    tokens in three parts (None where the trace has no count). Sampled evenly to
    :data:`CHART_ROWS`, first and last kept, as the replay samples its own chart."""
    sent = list(steps_of(index, "resending"))
    if len(sent) > CHART_ROWS:
        stride = (len(sent) - 1) / (CHART_ROWS - 1)
        sent = [sent[round(k * stride)] for k in range(CHART_ROWS)]
    rows: dict[str, list[Any]] = {"step": [], "n": [], "bytes": [], **{k: [] for k in TOKEN_KEYS}}
    for step in sent:
        event = index.event(step)
        tokens = request_tokens(index, step) or {}
        rows["step"].append(step)
        rows["n"].append(getattr(event, "request_index", 0))
        rows["bytes"].append(getattr(event, "bytes", 0))
        for key in TOKEN_KEYS:
            rows[key].append(tokens.get(key))
    return rows


def by_stage(index: StepIndex, values: list[int]) -> dict[str, Any]:
    """Per-step values that mostly follow the step's stage: the usual value of each stage, and
    the steps that differ (a checkpoint's step, a section an anchor points at)."""
    counts: dict[tuple[int, int], int] = {}
    for step, value in enumerate(values):
        key = (index.stage_codes[step], value)
        counts[key] = counts.get(key, 0) + 1
    usual: dict[int, tuple[int, int]] = {}
    for (code, value), seen in counts.items():
        if code not in usual or seen > usual[code][1]:
            usual[code] = (value, seen)
    default = [usual.get(code, (0, 0))[0] for code in range(len(index.stage_names))]
    others = {
        str(step): value
        for step, value in enumerate(values)
        if value != default[index.stage_codes[step]]
    }
    return {"usual": default, "others": others}


def run_lengths(values: Iterator[Any]) -> list[list[Any]]:
    """``[a, a, a, b]`` → ``[[a, 3], [b, 1]]``: the page expands it."""
    out: list[list[Any]] = []
    for value in values:
        if out and out[-1][0] == value:
            out[-1][1] += 1
        else:
            out.append([value, 1])
    return out


#: How far back from a subagent's start record its Task call is looked for (it is the assistant
#: message just before, a few lines up; a bound, so a damaged trace costs no more).
TASK_LOOKBACK = 200


def task_description(reader: TraceReader, start: int, tool_use_id: str) -> str:
    """The ``description`` the model gave the ``Task``/``Agent`` call ``tool_use_id`` (what the
    subagent was asked to do, as Claude Code's own progress line shows it), or ``""``."""
    for i in range(start - 1, max(start - TASK_LOOKBACK, 0) - 1, -1):
        if reader.kind_of(i) != "message":
            continue
        for block in getattr(reader[i], "content", None) or ():
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("id") == tool_use_id
            ):
                found = (block.get("input") or {}).get("description")
                return " ".join(found.split()) if isinstance(found, str) else ""
    return ""


def loops_of(index: StepIndex, nesting: Nesting) -> list[list[Any]]:
    """The subagent loops as ``[first step, last step, depth, loop, tool_use_id, description]``."""
    out = []
    for loop in nesting.loops:
        first = index.step_at_or_after(loop.start)
        last = len(index) - 1 if loop.end < 0 else index.step_at_or_before(loop.end)
        if first <= last:
            what = task_description(index.reader, loop.start, loop.tool_use_id)
            ids = (loop.loop, loop.tool_use_id, what)
            out.append([first, last, loop.depth, *(printable(text) for text in ids)])
    return out


def findings_of(reader: TraceReader) -> tuple[list[dict[str, Any]], str | None]:
    from tracer.view.diagnose import diagnose, step_of

    diagnosis = diagnose(reader)
    rows = [
        {
            "step": step_of(f),
            "severity": f.severity,
            "rule": f.rule,
            # A finding may quote the trace: escaped as the doctor's own lines are.
            "text": {lang: printable(f.text(lang), lines=True) for lang in LANGS},
            "hint": {lang: printable((f.hint or {}).get(lang, ""), lines=True) for lang in LANGS},
        }
        for f in diagnosis.findings
    ]
    return rows, diagnosis.problem
