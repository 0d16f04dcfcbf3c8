"""What the tour's cards say: a section stop, a revealed answer, the score. Rich text only.

Kept out of the screens (:mod:`tracer.replay.widgets.tour_screens`) so the words can be tested
without Textual, and out of :mod:`tracer.tour.stops` so the tour's logic stays free of layout.
"""

from __future__ import annotations

from rich.text import Text

from tracer.text.printable import printable
from tracer.tour.stops import Stop, Tour
from tracer.tour.words import say
from tracer.view.chapter_panel import diagram_text, scenario_notes
from tracer.view.i18n import pick, tr
from tracer.view.section_text import LABEL
from tracer.view.sections import RecordingInfo

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Checkpoint, Guide


def stop_title(tour: Tour, lang: str) -> str:
    stop = tour.current
    head = say("tour", lang, n=tour.position + 1, total=len(tour.stops))
    if stop.question is not None:
        name = checkpoint_name(stop.question.checkpoint, lang)
        return printable(f"{head} · {say('checkpoint', lang, name=name)}")
    section = pick(getattr(stop.section, "title", None), lang)
    # A title is one line of a Static, not laid out by wrap(): made printable here.
    return printable(f"{head} · {section}") if section else head


def _where(stop: Stop, rec: RecordingInfo | None, step: int, lang: str) -> Text:
    name = rec.name if rec is not None else stop.recording.name
    return Text(say("where", lang, recording=name, step=step + 1) + "\n", style="dim")


def section_card(tour: Tour, guide: Guide, rec: RecordingInfo | None, lang: str) -> Text:
    """A section stop: where we are, the section's notes, its diagram, a fault's notes."""
    stop = tour.current
    section = stop.section
    assert section is not None, "a section stop has its section"
    out = _where(stop, rec, stop.step, lang)
    out.append("\n" + pick(section.notes, lang).strip() + "\n")
    heading, notes = scenario_notes(rec, lang)
    if notes:
        out.append("\n" + heading + "\n", style="bold red" if rec and rec.fault else "bold")
        out.append(notes + "\n")
    lines = diagram_text(section, lang)
    if lines:
        out.append("\n" + tr("diagram", lang) + "\n", style=LABEL)
        out.append("\n".join(lines) + "\n")
    if section.id == "checkpoints":
        out.append("\n").append_text(score_text(tour, guide, lang))
    out.append("\n" + say("card_hint", lang) + "\n", style="dim italic")
    return out


def reveal_card(tour: Tour, lang: str) -> Text:
    """After an answer: right or not, what the trace shows, and why."""
    stop = tour.current
    question = stop.question
    assert question is not None
    given = (tour.answered() or {}).get("given", "")
    answer = question.answer_text(lang)
    out = Text()
    if question.check(given):
        out.append("✓ " + say("right", lang, answer=answer) + "\n", style="bold green")
    else:
        shown = next((c.text(lang) for c in question.choices if c.value == given), given)
        out.append("✗ " + say("wrong", lang, given=shown, answer=answer) + "\n", style="bold red")
    if question.evidence:
        out.append(say("evidence", lang, evidence=question.evidence_text(lang)) + "\n", style="dim")
    out.append("\n" + say("why", lang) + "\n", style=LABEL)
    out.append(pick(question.checkpoint.text, lang).strip() + "\n")
    out.append("\n" + say("reveal_hint", lang) + "\n", style="dim italic")
    return out


def score_text(tour: Tour, guide: Guide, lang: str) -> Text:
    """Every checkpoint with the reader's mark (✓ ✗ or not yet), and the score."""
    right, answered = tour.progress.score()
    asked = [c for c in guide.checkpoints if getattr(c, "ask", None)]
    out = Text(
        say("score", lang, right=right, answered=answered, total=len(asked)) + "\n", style="bold"
    )
    for checkpoint in asked:
        got = tour.progress.answers.get(checkpoint.id)
        name = checkpoint_name(checkpoint, lang)
        if got is None:
            note = (
                f"（{say('unanswered', lang)}）"
                if lang == "zh"
                else f" ({say('unanswered', lang)})"
            )
            out.append(f"  · {name}{note}\n", style="dim")
        else:
            mark, style = ("✓", "green") if got.get("right") else ("✗", "red")
            out.append(f"  {mark} {name}\n", style=style)
    return out


def checkpoint_name(checkpoint: Checkpoint, lang: str) -> str:
    """A checkpoint's short name: the label of its explanation ("结果翻译：…"), else its id."""
    text = pick(checkpoint.text, lang)
    for colon in ("：", ": "):
        head, found, _ = text.partition(colon)
        if found and 0 < len(head) <= 30:
            return head.strip()
    return str(checkpoint.id)


def done_card(tour: Tour, guide: Guide, lang: str) -> Text:
    out = score_text(tour, guide, lang)
    out.append("\n" + say("tour_done", lang) + "\n")
    return out


__all__ = ["done_card", "reveal_card", "score_text", "section_card", "stop_title"]
