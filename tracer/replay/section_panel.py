"""The lower half of the chapter panel: the step's section, its diagram, and a fault's notes.

:func:`tracer.replay.guide.section_text` writes a section (title, our notes, source anchors,
fidelity notes). This module adds what the issue of "every section reachable" asked for:

* the section's diagram (the roadmap, the journey) drawn as text from the same Mermaid source the
  README shows (:mod:`tracer.export.flowchart`);
* on a fault recording, the fault scenario's ``notes:`` first: what was broken on purpose, and
  how it shows in the trace.

The section itself is chosen by :func:`tracer.replay.sections.section_for_step`. Pure: Rich text
only, no Textual.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tracer.replay.guide import LABEL, section_text
from tracer.replay.sections import RecordingInfo
from tracer.tour.words import say


def diagram_text(section: Any, lang: str = "en") -> list[str]:
    """The section's Mermaid diagram in ``lang`` as lines of text (none when it has none)."""
    pick = getattr(section, "diagram", None)
    source = pick(lang) if callable(pick) else getattr(section, "mermaid", None)
    if not source:
        return []
    from tracer.export.flowchart import draw

    return draw(source)


def fault_notes(rec: RecordingInfo | None, lang: str) -> str:
    if rec is None or not rec.fault:
        return ""
    return (rec.notes.get(lang) or rec.notes.get("en") or "").strip()


def section_panel_text(
    section: Any | None, lang: str, rec: RecordingInfo | None = None, guide_loaded: bool = True
) -> Text:
    """Fault notes (on a fault recording), then the section, then its diagram."""
    out = Text()
    notes = fault_notes(rec, lang)
    if notes:
        out.append(say("fault_notes", lang) + "\n", style="bold red")
        out.append(notes + "\n\n")
    if not guide_loaded:
        return out
    out.append_text(section_text(section, lang))
    lines = diagram_text(section, lang)
    if lines:
        out.append("\n" + say("diagram", lang) + "\n", style=LABEL)
        out.append("\n".join(lines) + "\n")
    return out


__all__ = ["diagram_text", "fault_notes", "section_panel_text"]
