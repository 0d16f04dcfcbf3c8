"""The chapter panel's content: what a step is, its checkpoint, and the guide's section for it.

The guide (``chapters/ch12/guide.yaml``, loaded by :mod:`tracer.chapter.guide`) says which section
of chapter 12 explains each stage, where that code lives in Claude Code and here, and where we
differ from the real system. This module turns it into Rich text for one stage and language. A
missing or broken guide never stops the replay: the panel says so and the rest works.

The panel has two parts: :func:`step_text` (changes with every step: what the step is, its
checkpoint, and the differences from 2.1.88 that show at it, from ``differences.yaml``) above
:func:`section_text` (changes only when the step falls in another section), so each redraws only
when it must.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text

from tracer.view.i18n import colon, tr

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the guide loads lazily (load_guide), typing never
    from tracer.chapter.differences import Difference
    from tracer.chapter.guide_records import ClaudeCodeAnchor, Guide, Section, TracerAnchor
    from tracer.chapter.guide_records import Text as Bilingual

LABEL = "bold cyan"


def load_guide() -> tuple[Guide | None, str | None]:
    """``(guide, None)``, or ``(None, why)`` when there is no usable guide.

    The guide is :mod:`tracer.chapter.guide_records`' :class:`~tracer.chapter.guide_records.Guide`:
    its sections (title, notes, the stages each explains, where it lives in Claude Code and here,
    fidelity notes), a paragraph per stage, the checkpoints, the common errors, the anchors, and
    beside them the glossary and the differences from 2.1.88."""
    try:
        from tracer.chapter.guide import load_guide as load
    except ImportError:
        return None, "tracer.chapter.guide is not available"
    try:
        return load(), None
    except Exception as exc:  # a broken guide must not take the replay down with it
        return None, str(exc)


def _pick(value: Bilingual | str | None, lang: str) -> str:
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or "")
    return "" if value is None else str(value)


def _anchor(anchor: ClaudeCodeAnchor | TracerAnchor | None) -> str:
    if anchor is None:
        return "—"
    file = getattr(anchor, "file", None) or getattr(anchor, "module", None)
    if file is None and isinstance(anchor, dict):
        file = anchor.get("file") or anchor.get("module")
        function = anchor.get("function")
    else:
        function = getattr(anchor, "function", None)
    return f"{file} · {function}" if function else str(file)


def step_text(
    guide: Guide | None,
    problem: str | None,
    stage: str,
    lang: str,
    scenario: str | None = None,
    landed: Collection[str] | None = None,
) -> Text:
    """The top of the chapter panel: what this kind of step is, and the checkpoint it shows.

    ``landed``: the ids of the checkpoints this very step shows (see :meth:`~tracer.replay.
    widgets.chapter_column.ChapterColumn.checkpoints_here`); without it, every checkpoint of
    the stage and scenario is listed.
    """
    out = Text()
    if guide is None:
        out.append(tr("no_guide", lang) + "\n", style="dim")
        if problem:
            out.append(problem + "\n", style="dim italic")
        return out
    try:
        explanation = guide.stage_text(stage, lang)
    except (KeyError, AttributeError):
        explanation = ""
    if explanation:
        out.append(explanation.strip() + "\n", style="italic")
    for checkpoint in getattr(guide, "checkpoints", []) or []:
        if landed is not None:
            if checkpoint.id not in landed:
                continue
        elif getattr(checkpoint, "stage", None) != stage:
            continue
        where = getattr(checkpoint, "scenario", None)
        if landed is None and where and scenario and where not in (scenario, f"{scenario}.yaml"):
            continue
        name = "" if lang == "zh" else f" {checkpoint.id}"
        out.append("\n" + tr("checkpoint", lang) + name + colon(lang), style=LABEL)
        out.append(_pick(checkpoint.text, lang) + "\n")
    for difference in _differences(guide, stage, scenario):
        out.append("\n" + tr("difference", lang) + "\n", style=LABEL)
        out.append(
            f"{tr('difference_tracer', lang)}{colon(lang)}{_pick(difference.tracer, lang)}\n"
            f"{tr('difference_claude_code', lang)}{colon(lang)}"
            f"{_pick(difference.claude_code, lang)}\n"
            f"{tr('difference_why', lang)}{colon(lang)}{_pick(difference.why, lang)}\n"
        )
    return out


def _differences(guide: Guide, stage: str, scenario: str | None) -> list[Difference]:
    """The differences from 2.1.88 that show at this kind of step: those naming no scenario,
    and those naming this one."""
    from tracer.chapter.differences import of_stage

    name = (scenario or "").removesuffix(".yaml")
    return [
        d
        for d in of_stage(getattr(guide, "differences", ()), stage)
        if not d.scenarios or name in d.scenarios
    ]


def section_of(guide: Guide | None, stage: str) -> Section | None:
    return guide.section_for_stage(stage) if guide is not None else None


def section_text(section: Section | None, lang: str) -> Text:
    """The rest of the chapter panel: the section, our notes, source anchors, fidelity notes."""
    out = Text()
    if section is None:
        out.append(tr("no_section", lang) + "\n", style="dim")
        return out
    out.append(_pick(section.title, lang) + "\n\n", style="bold underline")
    notes = _pick(section.notes, lang)
    if notes:
        out.append(notes.strip() + "\n\n")
    out.append(tr("claude_code", lang) + colon(lang), style=LABEL)
    out.append(_anchor(section.claude_code) + "\n")
    out.append(tr("ours", lang) + colon(lang), style=LABEL)
    out.append(_anchor(section.tracer) + "\n")
    if section.fidelity:
        out.append("\n" + tr("fidelity", lang) + colon(lang).rstrip() + "\n", style=LABEL)
        for note in section.fidelity:
            out.append(f"• {_pick(note, lang)}\n")
    return out
