"""The tour page's data: ``tracer tour``'s own stops, cards and questions, written out once.

Nothing here decides what the tour says. The stops come from
:func:`tracer.tour.stops.plan_stops` (the same call ``tracer tour`` makes), every card from
:mod:`tracer.tour.cards` (the same Rich text the terminal shows, cut into lines by
:func:`~tracer.export.html.spans.text_lines`), every question and its answer from
:mod:`tracer.tour.checkpoints`, and each stop's step from the replay's renderer, as the replay
page renders it (:func:`tracer.view.render.render_step`, key hints left out). The browser
(``tour.js``) only picks which of these to show.

What the browser cannot know in advance is the reader's answer, so the cards that depend on it
are written for every answer there can be:

- a choice question carries a reveal card per choice (:func:`~tracer.tour.cards.reveal_card`
  with that choice given);
- a number question carries the right card and one wrong card made with :data:`GIVEN` as the
  answer given; the page puts the reader's number in its place;
- the checkpoints section's score (:func:`~tracer.tour.cards.score_text`) is written with every
  checkpoint unanswered, right and wrong; the page takes each checkpoint's line from the one that
  matches and fills in the count line from the tour's ``score`` words.

The cards' last line names the terminal's keys (Enter, w); the page has buttons and its own key
line instead, so that one line is left out. Claude Code has no tour: it mirrors nothing there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracer.export.html.spans import Interner, Line, plain_of, text_lines
from tracer.tour.cards import checkpoint_name, reveal_card, score_text, section_card, stop_title
from tracer.tour.stops import Progress, Stop, Tour, plan_stops
from tracer.tour.words import WORDS, say
from tracer.trace.reader import TraceReader
from tracer.view.fold import without_key_hints
from tracer.view.i18n import LANGS
from tracer.view.render import render_step
from tracer.view.sections import recording_info
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from collections.abc import Callable

    from rich.text import Text

    from tracer.chapter.guide_records import Guide
    from tracer.view.sections import Contents

#: Stands for the reader's answer in a number question's wrong card (a private-use character:
#: no guide text or trace holds it).
GIVEN = "\ue000"

#: The tour's words the page uses as they are (the rest of its words are the page's own).
FROM_TOUR = ("tour", "predict", "score", "unanswered", "review_title", "review_given", "why")


class _Texts:
    """Rich text → line numbers into one table of lines (and one of style classes)."""

    def __init__(self) -> None:
        self.lines, self.styles = Interner(), Interner()

    def add(self, text: Text, drop: str | None = None) -> list[int]:
        lines = text_lines(text, self.styles)
        if drop is not None and lines and plain_of(lines[-1]) == drop.strip():
            lines.pop()  # the terminal's key hint: the page has its own
            while lines and lines[-1] == "":
                lines.pop()
        return [self.lines.add(line) for line in lines]

    def raw(self, text: Text) -> list[Line]:
        return text_lines(text, self.styles)


def _both(make: Any) -> dict[str, Any]:
    return {lang: make(lang) for lang in LANGS}


def _short(path: Path) -> str:
    from tracer.files.paths import short_name

    return short_name(path)


class _Steps:
    """The recordings' steps the tour shows, each rendered once per language."""

    def __init__(self, texts: _Texts, links: dict[str, str]) -> None:
        self.texts, self.links = texts, links
        self.items: list[dict[str, Any]] = []
        self._found: dict[tuple[Path, int], int] = {}
        self._indexes: dict[Path, StepIndex] = {}

    def index(self, path: Path) -> StepIndex:
        if path not in self._indexes:
            self._indexes[path] = StepIndex(TraceReader(path))
        return self._indexes[path]

    def add(self, path: Path, step: int) -> int:
        key = (path, step)
        if key not in self._found:
            index = self.index(path)
            short = _short(path)
            with without_key_hints():
                lines = _both(lambda lang: self.texts.add(render_step(index, step, lang)))
            self._found[key] = len(self.items)
            self.items.append(
                {
                    "recording": short,
                    "href": self.links.get(short),
                    "step": step,
                    "total": len(index),
                    **lines,
                }
            )
        return self._found[key]

    def close(self) -> None:
        for index in self._indexes.values():
            index.reader.close()


def _score(tour: Tour, guide: Guide, texts: _Texts, card: Callable[..., Text]) -> tuple[dict, dict]:
    """The score as ``card(lang)`` shows it (the checkpoints section's card, else
    :func:`~tracer.tour.cards.score_text` alone): where it sits in the card (found by its text,
    so the card is never rebuilt) and each checkpoint's line, unanswered, right and wrong, taken
    from the card made with every checkpoint so (its styles are the card's own)."""
    asked = [c for c in guide.checkpoints if getattr(c, "ask", None)]
    saved = tour.progress
    place: dict[str, list[int] | None] = {}
    rows: dict[str, list[list[int]]] = {lang: [[] for _ in asked] for lang in LANGS}
    try:
        for right in (None, True, False):
            answers = {} if right is None else {c.id: {"given": "", "right": right} for c in asked}
            tour.progress = Progress(answers=answers)
            for lang in LANGS:
                lines = texts.raw(card(lang))
                score = texts.raw(score_text(tour, guide, lang))
                at = _score_place([plain_of(x) for x in lines], [plain_of(x) for x in score])
                if right is None:
                    place[lang] = at
                if at is None:
                    raise ValueError("the card does not show the score")
                for k in range(len(asked)):
                    rows[lang][k].append(texts.lines.add(lines[at[0] + 1 + k]))
    finally:
        tour.progress = saved
    return rows, place


def _score_place(card: list[str], score: list[str]) -> list[int] | None:
    """``[start, end)`` of the lines ``score`` inside ``card``."""
    for start in range(len(card) - len(score) + 1):
        if card[start : start + len(score)] == score:
            return [start, start + len(score)]
    return None


def _question(tour: Tour, stop: Stop, texts: _Texts, steps: _Steps) -> dict[str, Any]:
    question = stop.question
    assert question is not None
    checkpoint = question.checkpoint
    prompt = checkpoint.question
    assert prompt is not None, "the guide gives an asked checkpoint its question"
    saved = tour.progress

    def reveal(given: str) -> dict[str, list[int]]:
        tour.progress = Progress(answers={checkpoint.id: {"given": given, "right": False}})
        try:
            return _both(lambda lang: texts.add(reveal_card(tour, lang), say("reveal_hint", lang)))
        finally:
            tour.progress = saved

    if question.numeric:
        reveals = {"right": reveal(question.answer), "wrong": reveal(GIVEN)}
    else:
        reveals = {c.value: reveal(c.value) for c in question.choices}
    return {
        "checkpoint": checkpoint.id,
        "prompt": _both(lambda lang: prompt[lang]),
        "answer": question.answer,
        "numeric": question.numeric,
        "choices": [{"value": c.value, "label": _both(c.text)} for c in question.choices],
        "reveal": reveals,
        "land": steps.add(stop.recording, question.land),
        # Every step from where the question is asked to where the answer shows: after the
        # answer the reader can step through them (the tour itself jumps to the last).
        "path": [steps.add(stop.recording, n) for n in range(stop.step, question.land + 1)],
    }


def tour_data(
    guide: Guide,
    contents: Contents,
    links: dict[str, str] | None = None,
    stops: list[Stop] | None = None,
) -> dict[str, Any]:
    """The whole tour as data: stops in order, their cards, questions and steps.

    ``links``: recording → its page (the site's), so a stop can open its step there; ``stops``:
    already planned ones (default: :func:`plan_stops`, as ``tracer tour`` plans them).
    """
    stops = plan_stops(guide, contents) if stops is None else stops
    texts = _Texts()
    steps = _Steps(texts, links or {})
    tour = Tour(stops)
    out: list[dict[str, Any]] = []
    score = None
    try:
        for position, stop in enumerate(stops):
            tour.position = position
            item: dict[str, Any] = {
                "id": stop.id,
                "kind": stop.kind,
                "title": _both(lambda lang: stop_title(tour, lang)),
                "view": steps.add(stop.recording, stop.step),
            }
            if stop.kind == "section":
                info = recording_info(stop.recording, steps.index(stop.recording).reader.header)
                item["card"] = _both(
                    lambda lang, info=info: texts.add(
                        section_card(tour, guide, info, lang), say("card_hint", lang)
                    )
                )
                if stop.section is not None and stop.section.id == "checkpoints":
                    score, item["score_at"] = _score(
                        tour,
                        guide,
                        texts,
                        lambda lang, info=info: section_card(tour, guide, info, lang),
                    )
            else:
                item["question"] = _question(tour, stop, texts, steps)
            out.append(item)
    finally:
        steps.close()
    asked = [c for c in guide.checkpoints if getattr(c, "ask", None)]
    at = {s.question.checkpoint.id: n for n, s in enumerate(stops) if s.question is not None}
    return {
        "version": 1,
        "stops": out,
        "steps": steps.items,
        "checkpoints": [
            {
                "id": c.id,
                "name": _both(lambda lang, c=c: checkpoint_name(c, lang)),
                "stop": at.get(c.id),
            }
            for c in asked
        ],
        "score_lines": score
        or _score(tour, guide, texts, lambda lang: score_text(tour, guide, lang))[0],
        "lines": texts.lines.items,
        "styles": texts.styles.items,
        "given": GIVEN,
        "words": {key: dict(WORDS[key]) for key in FROM_TOUR},
    }


__all__ = ["GIVEN", "tour_data"]
