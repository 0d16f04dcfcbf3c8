"""The page's data: every step rendered once per language, by the replay's own renderers.

:func:`build` walks a trace through a :class:`~tracer.view.steps.StepIndex` and, for each step,
asks :func:`tracer.view.render.render_step` for its text in Chinese and in English (the key
hints left out, long outputs folded with the replay's limits, or kept whole with ``full``), the
raw records behind it (:mod:`tracer.view.raw`), and which chapter panel and section go beside
it (:mod:`tracer.view.section_text`, :mod:`tracer.view.sections`). The browser draws exactly these
lines; it never decides what a step says.

Two parts, so that opening the page costs the same on any trace:

- **meta**: small and read at once: the stage of each step and its turn (run-length coded), the
  subagent loops, the chapter panels (each written once; which one a step shows is stored by
  stage, with the few steps that differ), the table of contents, the doctor's findings, and the
  requests for the chart (sampled on a long session);
- **chunks** of :data:`CHUNK` steps: each step's lines as numbers into the chunk's own table of
  distinct lines (a repeated label or tool output is written once per chunk); and beside each
  chunk, in a block of its own, every step's raw JSON and, when that is folded, the fold's note
  in each language (apart, so that search, which reads every chunk's lines, never inflates the
  raw JSON, most of a big page's bytes). A big trace's blocks after the first are deflated and
  base64-coded (``encoding: "deflate"``): the page inflates only the chunk of the step on
  screen. The first stays plain JSON and comes before the script, so step 1 is drawn before the
  rest of the file is read.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.export.html.chapter import chapter_panels
from tracer.export.html.spans import Interner, text_lines
from tracer.export.html.words import page_words
from tracer.text.printable import printable, printable_json
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.tokens import tokens_of
from tracer.view.cursor import steps_of
from tracer.view.fold import fold, whole, without_key_hints
from tracer.view.i18n import LANGS
from tracer.view.i18n_words import STAGE_NAMES
from tracer.view.nesting import Nesting
from tracer.view.raw import step_json
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

#: Steps per chunk of the payload.
CHUNK = 100
#: Above this many steps the chunks are deflated (a small page stays plain, readable JSON).
DEFLATE_ABOVE = 2 * CHUNK
#: Up to this many trace lines a resending step's raw view carries the rebuilt request body (the
#: rebuild replays every earlier request, so it is kept to traces where that is cheap).
BODY_LINES = 2_000
#: The raw JSON of one step is folded like a long output, with room for a few records.
RAW_LINES, RAW_CHARS = 400, 40_000


@dataclass
class Payload:
    meta: dict[str, Any]
    chunks: list[str] = field(default_factory=list)
    """Each chunk as the text of its script element (JSON, or a JSON string of base64)."""
    raws: list[str] = field(default_factory=list)
    """Each chunk's raw JSON and fold notes, ``{"first": n, "raw": [[json, notes], …]}``."""


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


def _bodies(index: StepIndex) -> dict[int, Any]:
    """Resending step → the request body it sent, all rebuilt in one pass (small traces only:
    the bodies together grow with the square of the turns)."""
    reader = index.reader
    if len(reader) > BODY_LINES:
        return {}
    events = (reader[i] for i in range(len(reader)) if reader.kind_of(i) in ("message", "request"))
    try:
        bodies = [rebuilt.body for rebuilt in rebuild_requests(events)]
    except (KeyError, IndexError, TypeError):
        # A request points at a message the trace does not hold, or at a part its message does
        # not have: show draws such a trace, and so does the page, without the rebuilt bodies
        # (each step's own JSON is still there).
        return {}
    return dict(zip(steps_of(index, "resending"), bodies, strict=False))


def _raw(
    index: StepIndex, step: int, bodies: dict[int, Any], full: bool
) -> tuple[str, dict[str, str] | None]:
    """A step's raw JSON, folded like a long output, and the fold's note in each language (None:
    nothing was left out). The JSON is the same in both; the page adds the reader's note."""
    # JSON escapes C0 controls itself; printable_json escapes the C1 range and bidi controls too.
    text = printable_json(step_json(index, step, body=bodies.get(step)))
    if full:
        return text, None
    notes = {}
    for lang in LANGS:
        shown, note = fold(text, RAW_LINES, RAW_CHARS, lang=lang)
        if note:
            notes[lang] = note
    return shown, notes or None


def _chunk_text(chunk: dict[str, Any], deflate: bool) -> str:
    text = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
    if not deflate:
        return text
    packed = zlib.compress(text.encode("utf-8"), 6)
    return json.dumps(base64.b64encode(packed).decode("ascii"))


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


def build(
    path: Path,
    *,
    full: bool = False,
    guide: Any = None,
    contents: Any = None,
    links: dict[str, str] | None = None,
) -> Payload:
    """The data of the page for the trace at ``path`` (``links``: recording → page, for --all)."""
    reader = TraceReader(path)
    for i in range(len(reader)):
        # Every line decoded, as show decodes it (the reader keeps only the recent ones): the
        # page reads some kinds only, and must refuse the trace show refuses, not draw it.
        reader[i]
    index = StepIndex(reader)
    count = len(index)
    styles = Interner()
    deflate = count > DEFLATE_ABOVE
    payload = Payload({})
    bodies = _bodies(index)
    with ExitStack() as modes:
        modes.enter_context(without_key_hints())
        if full:
            modes.enter_context(whole())
        for first in range(0, count, CHUNK):
            lines = Interner()
            steps = []
            raws = []
            for step in range(first, min(first + CHUNK, count)):
                said = {
                    lang: [lines.add(line) for line in
                           text_lines(render_step(index, step, lang), styles)]
                    for lang in LANGS
                }  # fmt: skip
                steps.append([said["zh"], said["en"]])
                raws.append(list(_raw(index, step, bodies, full)))
            chunk = {"first": first, "lines": lines.items, "steps": steps}
            # The first chunk stays plain, so the first step draws while the rest still loads.
            payload.chunks.append(_chunk_text(chunk, deflate and bool(first)))
            payload.raws.append(_chunk_text({"first": first, "raw": raws}, deflate and bool(first)))
    panels = chapter_panels(index, styles, guide, contents, links)
    nesting = Nesting(index)
    findings, problem = findings_of(reader)
    requests = request_rows(index)
    header = reader.header if isinstance(reader.header, dict) else {}
    stage_list = index.stage_names
    payload.meta = {
        "version": 1,
        "name": printable(panels["name"]),
        "source": header.get("source") or {},
        "count": count,
        "chunk": CHUNK,
        "encoding": "deflate" if deflate else "json",
        "full": full,
        "stages": stage_list,
        "stage": [index.stage_codes[s] for s in range(count)],
        "turns": run_lengths(index.turn(s) for s in range(count)),
        "stations": list(STATIONS),
        "stage_names": {s: STAGE_NAMES.get(s, {"zh": s, "en": s}) for s in stage_list},
        # The turns of the main loop (a subagent's turns are listed inside its Task call).
        "top": [
            s for s in index.group_starts[: index.group_count] if s < count and not nesting.depth(s)
        ],
        "loops": loops_of(index, nesting),
        "styles": styles.items,
        "panels": panels["panels"],
        "chapter": by_stage(index, panels["chapter"]),
        "section": by_stage(index, panels["section"]),
        "toc": panels["toc"],
        "title": {lang: printable(text) for lang, text in panels["title"].items()},
        "findings": findings,
        "doctor_problem": problem,
        "requests": requests,
        "words": page_words(),
        "links": links or {},
        "torn_line": reader.torn_line,
    }
    reader.close()
    return payload
