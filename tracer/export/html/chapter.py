"""The page's chapter panel and table of contents, from the replay's own guide layers.

The terminal's chapter panel has two parts (see :mod:`tracer.view.section_text`): what this kind of
step is and the checkpoint it shows (:func:`~tracer.view.section_text.step_text`), over the section
of chapter 12 the step belongs to (:func:`~tracer.view.chapter_panel.section_panel_text`, chosen by
:func:`~tracer.view.sections.section_for_step`). Both change rarely from step to step, so each
distinct panel is rendered once per language and the steps point at it by number.

The table of contents lists the chapter's sections in the book's order with the steps of this
recording that show each (:func:`~tracer.view.sections.entries_of`, the rule the replay's ``s``
key uses); with ``--all`` it also links the other pages that show a section.
"""

from __future__ import annotations

from typing import Any

from tracer.export.html.spans import Interner, text_lines
from tracer.tour.checkpoints import NotInTrace, landing_step
from tracer.view.chapter_panel import section_panel_text
from tracer.view.i18n import LANGS, pick
from tracer.view.section_text import load_guide, step_text
from tracer.view.sections import (
    Contents,
    RecordingInfo,
    entries_of,
    recording_info,
    section_for_step,
)
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Guide

#: Steps listed under a section in the table of contents.
TOC_PLACES = 8


def landings(guide: Guide, rec: RecordingInfo, index: StepIndex) -> dict[int, list[str]]:
    """Step → ids of the checkpoints it shows (as the replay's ``checkpoints_here`` finds them)."""
    found: dict[int, list[str]] = {}
    for checkpoint in getattr(guide, "checkpoints", None) or []:
        if not checkpoint.scenario or not rec.called(checkpoint.scenario):
            continue
        try:
            found.setdefault(landing_step(index, checkpoint), []).append(checkpoint.id)
        except NotInTrace:
            continue
    return found


def chapter_panels(
    index: StepIndex,
    styles: Interner,
    guide: Guide | None = None,
    contents: Contents | None = None,
    links: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Panels (each ``{"zh": lines, "en": lines}``), each step's two panel numbers, the TOC."""
    problem = None
    if guide is None:
        guide, problem = load_guide()
    reader = index.reader
    rec = recording_info(reader.path, reader.header)
    landed = landings(guide, rec, index) if guide is not None else {}
    source = reader.header.get("source") if isinstance(reader.header, dict) else None
    scenario = source.get("name") if isinstance(source, dict) else None
    panels = Interner()
    chapter: list[int] = []
    section: list[int] = []
    for step in range(len(index)):
        stage, turn = index.stage(step), index.turn(step)
        here = tuple(landed.get(step, ()))
        found, _ = section_for_step(guide, rec, stage, turn)
        keys = (("step", stage, here), ("section", getattr(found, "id", None)))
        if keys[0] not in panels:  # each panel rendered once, however many steps show it
            panels.add(
                {
                    lang: text_lines(
                        step_text(guide, problem, stage, lang, scenario, landed=here), styles
                    )
                    for lang in LANGS
                },
                key=keys[0],
            )
        if keys[1] not in panels:
            panels.add(
                {
                    lang: text_lines(
                        section_panel_text(found, lang, rec, guide is not None), styles
                    )
                    for lang in LANGS
                },
                key=keys[1],
            )
        chapter.append(panels.add(None, key=keys[0]))
        section.append(panels.add(None, key=keys[1]))
    return {
        "name": rec.name,
        "title": _title(index),
        "panels": panels.items,
        "chapter": chapter,
        "section": section,
        "toc": _toc(guide, rec, index, contents, links or {}),
    }


def _title(index: StepIndex) -> dict[str, str]:
    if not len(index) or index.stage(0) != "session":
        return {}
    title = getattr(index.event(0), "title", None) or {}
    return {lang: pick(title, lang) for lang in LANGS} if title else {}


def _toc(
    guide: Guide | None,
    rec: RecordingInfo,
    index: StepIndex,
    contents: Contents | None,
    links: dict[str, str],
) -> list[dict[str, Any]]:
    if guide is None:
        return []
    steps = [(index.stage(s), index.turn(s)) for s in range(len(index))]
    mine = entries_of(guide, rec, steps)
    out = []
    for sec in guide.sections:
        entry = mine.get(sec.id)
        elsewhere = []
        if contents is not None:
            for other in contents.of(sec.id):
                page = links.get(other.recording.name)
                if page is not None and other.recording.name != rec.name:
                    elsewhere.append([other.recording.name, page, other.first])
        out.append(
            {
                "id": sec.id,
                "title": {lang: pick(sec.title, lang) for lang in LANGS},
                # The first few places (a long session shows a stage thousands of times).
                "here": [a - 1 for a, _ in entry.ranges()[:TOC_PLACES]] if entry else [],
                "more": max(len(entry.ranges()) - TOC_PLACES, 0) if entry else 0,
                "first": entry.first if entry else None,
                "elsewhere": elsewhere,
            }
        )
    return out
