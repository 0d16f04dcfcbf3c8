"""The tour bar: the line under the journey strip that says "Tour 3/17", and the tour's moves.

:class:`TourBar` owns the :class:`~tracer.tour.stops.Tour` (the stops and the reader's answers)
and decides what each stop shows: a section stop opens a card with the section's notes; a
checkpoint stop stands one step before the checkpoint's step and asks the reader to predict
(Python Tutor's predict-then-step), then steps on and shows what the trace says and why.

The bar never opens a trace itself. It posts :class:`TourBar.Go` (a message up) and the app
opens the recording and moves the cursor; then the bar pushes the stop's card. The card screens
take the tour keys too (``w`` ``W`` ``v``, :mod:`tracer.replay.widgets.tour_screens`), so the reader
can move from any card: on a question ``w`` skips it (it stays unanswered, and the score says so).
The bar is bound to the screen's cursor and language (attributes down) and keeps its line current.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from tracer.replay.widgets.tour_screens import (
    Answer,
    Reviewed,
    ReviewScreen,
    TourCard,
    TourQuestion,
)
from tracer.text.cells import cells
from tracer.tour.cards import checkpoint_name, done_card, reveal_card, section_card, stop_title
from tracer.tour.stops import Tour
from tracer.tour.words import say
from tracer.view.sections import RecordingInfo, recording_info

if TYPE_CHECKING:
    from tracer.chapter.guide_records import Guide


class TourBar(Static):
    """The tour's place ("Tour n/N") and its keys; hidden when the app is not on a tour."""

    @dataclass
    class Go(Message):
        """Open ``recording`` at 0-based ``step`` (the app does it)."""

        recording: Path
        step: int

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)

    def __init__(self, tour: Tour | None, guide: Guide | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tour, self.guide = tour, guide
        self._key: tuple[int, str, int] | None = None

    def on_mount(self) -> None:
        self.set_class(self.tour is not None, "shown")

    def watch_step(self) -> None:
        self.refresh_bar()

    def watch_lang(self) -> None:
        self.refresh_bar()

    def on_resize(self) -> None:
        self.refresh_bar()  # (what fits depends on the width)

    def refresh_bar(self) -> None:
        tour = self.tour
        width = self.size.width
        key = (tour.position, self.lang, width) if tour is not None else None
        if key == self._key or tour is None:
            return  # unchanged: no repaint on every step
        self._key = key
        tour.progress.lang = self.lang  # saved with the next move or answer
        self.update(self.line(width))

    def line(self, width: int) -> str:
        """The bar's text in ``width`` cells: its place and keys, and "every other key as
        usual" when there is room for it (an 80-column terminal has none: the review key and
        ``?`` matter more)."""
        tour = self._tour()
        parts = [
            say("tour", self.lang, n=tour.position + 1, total=len(tour.stops)),
            say("tour_keys", self.lang),
            say("tour_as_usual", self.lang),
            say("tour_more_keys", self.lang),
        ]
        full = " " + " · ".join(parts)
        if not width or cells(full) <= width:
            return full
        return " " + " · ".join(parts[:2] + parts[3:])

    # -- the stops -------------------------------------------------------------------------

    def show_stop(self) -> None:
        """Open the current stop: its recording and step, then its card or question."""
        tour = self._tour()
        stop = tour.current
        self.post_message(self.Go(stop.recording, stop.step))
        self.refresh_bar()
        title = stop_title(tour, self.lang)
        if stop.kind == "section":
            card = section_card(tour, self._guide(), _info(stop.recording), self.lang)
            self.app.push_screen(TourCard(title, card, self.lang), self._moved)
            return
        question = stop.question
        assert question is not None
        if tour.answered() is not None:
            self.reveal()
            return
        asked = question.checkpoint.question
        assert asked is not None, "the guide gives an asked checkpoint its question"
        prompt = asked[self.lang]
        self.app.push_screen(TourQuestion(title, question, prompt, self.lang), self._asked)

    def _asked(self, result: Answer | str | None) -> None:
        """The question's answer (None: not now; ``w`` comes back to it), or a tour key."""
        if isinstance(result, Answer):
            self._tour().answer(result.given)
            self.reveal()
        elif result is not None:
            self._moved(result)

    def _moved(self, result: str | None) -> None:
        if result == "next":
            self.next_stop()
        elif result == "back":
            self.previous_stop()
        elif result == "review":
            self.review()

    def reveal(self) -> None:
        tour = self._tour()
        question = tour.current.question
        assert question is not None
        self.post_message(self.Go(tour.current.recording, question.land))
        self.app.push_screen(
            TourCard(stop_title(tour, self.lang), reveal_card(tour, self.lang), self.lang),
            self._moved,
        )

    def next_stop(self) -> None:
        """``w``: the next stop. A question not answered stays so (skipped): the score and the
        review say so, and ``W`` goes back to it."""
        tour = self._tour()
        if tour.at_end:
            self.app.push_screen(
                TourCard(
                    say("last_stop", self.lang),
                    done_card(tour, self._guide(), self.lang),
                    self.lang,
                ),
                self._moved,
            )
            return
        tour.move(1)
        self.show_stop()

    def previous_stop(self) -> None:
        tour = self._tour()
        if tour.position == 0:
            self.notify(say("first_stop", self.lang))
            return
        tour.move(-1)
        self.show_stop()

    def review(self) -> None:
        """``v``: every checkpoint with the reader's answer. Enter on an answered one goes to
        its evidence; on one skipped, the tour goes back to it and asks it."""
        tour = self._tour()
        rows = []
        for stop in tour.stops:
            if stop.question is None:
                continue
            got = tour.answered(stop)
            given = None
            if got is not None:
                value = str(got.get("given", ""))
                given = next(
                    (c.text(self.lang) for c in stop.question.choices if c.value == value), value
                )
            rows.append(
                Reviewed(
                    checkpoint_name(stop.question.checkpoint, self.lang),
                    given,
                    bool(got and got.get("right")),
                    stop.recording,
                    stop.question.land,
                    tour.stops.index(stop),
                )
            )

        def chosen(row: Reviewed | None) -> None:
            if row is None:
                return
            if row.given is None:  # skipped: ask it now, rather than give the answer away
                tour.move(row.position - tour.position)
                self.show_stop()
            else:
                self.post_message(self.Go(row.recording, row.step))

        self.app.push_screen(ReviewScreen(rows, self.lang), chosen)

    def key(self, move: str) -> None:
        """A tour key on the replay (``w`` next, ``W`` back, ``v`` review), not on a card."""
        if self.tour is None:
            self.notify(say("not_in_tour", self.lang))
            return
        {"next": self.next_stop, "back": self.previous_stop, "review": self.review}[move]()

    def _tour(self) -> Tour:
        assert self.tour is not None, "the tour bar moves only on a tour"
        return self.tour

    def _guide(self) -> Guide:
        assert self.guide is not None, "a tour is made of a guide"
        return self.guide


def _info(path: Path) -> RecordingInfo:
    """What the card says about a recording (its name, whether it is a fault and why)."""
    from tracer.trace.reader import TraceReader

    return recording_info(path, TraceReader(path).header)
