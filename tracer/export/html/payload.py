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
  requests for the chart (sampled on a long session); its columns are made by
  :mod:`tracer.export.html.meta` and the panels by :mod:`tracer.export.html.chapter`;
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
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.export.html.chapter import chapter_panels
from tracer.export.html.meta import by_stage, findings_of, loops_of, request_rows, run_lengths
from tracer.export.html.spans import Interner, text_lines
from tracer.export.html.words import page_words
from tracer.text.printable import printable, printable_json
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.view.cursor import steps_of
from tracer.view.fold import fold, whole, without_key_hints
from tracer.view.i18n import LANGS
from tracer.view.i18n_words import STAGE_NAMES
from tracer.view.nesting import Nesting
from tracer.view.raw import step_json
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Guide
    from tracer.view.sections import Contents

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


def build(
    path: Path,
    *,
    full: bool = False,
    guide: Guide | None = None,
    contents: Contents | None = None,
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
