"""The lower half of the chapter panel: the step's section, its diagram, and a fault's notes.

:func:`tracer.view.section_text.section_text` writes a section (title, our notes, source anchors,
fidelity notes). This module adds what the issue of "every section reachable" asked for:

* the section's diagram (the roadmap, the journey) drawn as text from the same Mermaid source the
  README shows (:mod:`tracer.view.flowchart`);
* the scenario's ``notes:`` first: on a fault recording under "what was broken on purpose, and
  how it shows", on any other under "what this scenario shows".

The section itself is chosen by :func:`tracer.view.sections.section_for_step`. Pure: Rich text
only, no Textual.
"""

from __future__ import annotations

from rich.text import Text

from tracer.view.i18n import tr
from tracer.view.section_text import LABEL, section_text
from tracer.view.sections import RecordingInfo

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Section


def diagram_text(section: Section | None, lang: str = "en") -> list[str]:
    """The section's Mermaid diagram in ``lang`` as lines of text (none when it has none)."""
    pick = getattr(section, "diagram", None)
    source = pick(lang) if callable(pick) else getattr(section, "mermaid", None)
    if not source:
        return []
    from tracer.view.flowchart import draw

    return draw(source)


def fault_notes(rec: RecordingInfo | None, lang: str) -> str:
    if rec is None or not rec.fault:
        return ""
    return (rec.notes.get(lang) or rec.notes.get("en") or "").strip()


def scenario_notes(rec: RecordingInfo | None, lang: str) -> tuple[str, str]:
    """The recording's scenario notes and the heading they go under: a fault's "what was broken
    on purpose", or, for any other scenario with notes, "what this scenario shows"."""
    if rec is None:
        return "", ""
    notes = (rec.notes.get(lang) or rec.notes.get("en") or "").strip()
    if not notes:
        return "", ""
    return tr("fault_notes" if rec.fault else "scenario_notes", lang), notes


def section_panel_text(
    section: Section | None, lang: str, rec: RecordingInfo | None = None, guide_loaded: bool = True
) -> Text:
    """The scenario's notes, then the section, then its diagram."""
    out = Text()
    heading, notes = scenario_notes(rec, lang)
    if notes:
        style = "bold red" if rec is not None and rec.fault else "bold"
        out.append(heading + "\n", style=style)
        out.append(notes + "\n\n")
    if not guide_loaded:
        return out
    out.append_text(section_text(section, lang))
    lines = diagram_text(section, lang)
    if lines:
        out.append("\n" + tr("diagram", lang) + "\n", style=LABEL)
        out.append("\n".join(lines) + "\n")
    return out


__all__ = ["diagram_text", "fault_notes", "scenario_notes", "section_panel_text"]
