"""Moving between recordings: the table of contents (``s``), the tour (``w`` ``W``), and the
checkpoint a step shows.

:class:`NavigationControls` is mixed into :class:`~tracer.replay.app.ReplayApp`, like
:class:`~tracer.replay.doctor_controls.DoctorControls`. :meth:`open_recording` swaps the trace
the app shows without leaving it: a new reader and index go down to the timeline and the search
bar, the doctor checks the new trace, and the cursor lands on the chosen step.

The table of contents and the tour are computed once, on first use, from the bundled recordings
(:mod:`tracer.replay.sections`, :mod:`tracer.replay.tour`); both are a fraction of a second.
On the tour a section stop shows a card with the section's notes; a checkpoint stop stands one
step before the checkpoint's step and asks the reader to predict (Python Tutor's
predict-then-step), then steps on and shows what the trace says and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracer.replay.checkpoints import NotInTrace, answer_step
from tracer.replay.sections import Contents, RecordingInfo, recording_info
from tracer.replay.tour_words import say

if TYPE_CHECKING:
    from tracer.replay.steps import Cursor, StepIndex
    from tracer.replay.tour import Tour


class NavigationControls:
    """Key ``s`` (contents), ``w``/``W`` (tour stops), and switching recordings."""

    # Set by ReplayApp.__init__; App methods (push_screen, notify, query_one, …) come from it.
    index: StepIndex
    cursor: Cursor
    lang: str
    guide: Any
    recording: RecordingInfo
    tour: Tour | None
    _contents: Contents | None
    _landings: dict[int, list[str]] | None
    _tour_bar_key: tuple[int, str] | None = None

    # -- switching recordings ------------------------------------------------------------------

    def open_recording(self, path: Path, step: int = 0) -> None:
        """Show the trace at ``path`` from 0-based ``step`` (just move if it is already open)."""
        from tracer.replay.steps import Cursor, StepIndex, clamp
        from tracer.replay.widgets.search_bar import SearchBar
        from tracer.replay.widgets.timeline import Timeline
        from tracer.trace.reader import TraceReader

        if Path(path).resolve() == Path(self.index.reader.path).resolve():
            self.go(step)
            return
        for group in ("index", "doctor"):  # work on the old trace is no longer wanted
            self.workers.cancel_group(self, group)
        reader = TraceReader(path)
        index = StepIndex(reader)  # bundled recordings are small: index them at once
        self.index, self.indexing = index, False
        self.cursor = Cursor(index, clamp(index, step))
        self.recording = recording_info(Path(path), reader.header)
        source = reader.header.get("source") or {}
        self.scenario = source.get("name") if isinstance(source, dict) else None
        self._landings = None
        self._chapter_key = self._section_key = None
        timeline = self.query_one(Timeline)
        timeline.index, timeline._rows_key = index, None  # its row cache belongs to the old one
        timeline.set_marks({})
        bar = self.query_one(SearchBar)
        bar.index, bar.matches = index, []
        self.diagnosis, self.doctor_state = None, ""
        self._diagnosed_complete = self._doctor_reported = False
        self._start_step = self.cursor.step
        self.start_doctor()
        self.render_step()

    # -- the checkpoints a step shows ----------------------------------------------------------

    def checkpoints_here(self, step: int) -> list[str]:
        """Ids of the checkpoints whose step is ``step`` in this recording."""
        if self.guide is None or not self.index.complete:
            return []
        if self._landings is None:
            found: dict[int, list[str]] = {}
            for checkpoint in getattr(self.guide, "checkpoints", []) or []:
                if getattr(checkpoint, "scenario", None) is None:
                    continue
                if not self.recording.called(checkpoint.scenario):
                    continue
                try:
                    found.setdefault(answer_step(self.index, _full(checkpoint)), []).append(
                        checkpoint.id
                    )
                except NotInTrace:
                    continue
            self._landings = found
        return self._landings.get(step, [])

    # -- the table of contents -----------------------------------------------------------------

    def contents(self) -> Contents | None:
        if self.guide is None:
            return None
        if self._contents is None:
            from tracer.replay.sections import bundled_contents

            self._contents = bundled_contents(self.guide)
        return self._contents

    def action_contents(self) -> None:
        from tracer.replay.sections import section_for_step
        from tracer.replay.widgets.toc_screen import TocScreen

        contents = self.contents()
        if contents is None:
            return
        current = None
        if len(self.index):
            section, _ = section_for_step(
                self.guide,
                self.recording,
                self.index.stage(self.cursor.step),
                self.index.turn(self.cursor.step),
            )
            current = getattr(section, "id", None)

        def chosen(target: tuple[Path, int] | None) -> None:
            if target is not None:
                self.open_recording(*target)

        self.push_screen(TocScreen(contents, self.lang, current), chosen)

    # -- the tour ------------------------------------------------------------------------------

    def start_tour(self) -> None:
        """Open the tour at its saved stop."""
        if self.tour is not None:
            self.show_stop()

    def show_stop(self) -> None:
        from tracer.replay.tour_cards import section_card, stop_title
        from tracer.replay.widgets.tour_screen import TourCard, TourQuestion

        tour = self.tour
        assert tour is not None
        stop = tour.current
        self.open_recording(stop.recording, stop.step)
        self.render_tour_bar()
        title = stop_title(tour, self.lang)
        if stop.kind == "section":
            card = section_card(tour, self.guide, self.recording, self.lang)
            self.push_screen(TourCard(title, card))
            return
        question = stop.question
        assert question is not None
        if tour.answered() is not None:
            self.reveal()
            return
        prompt = question.checkpoint.question[self.lang]
        self.push_screen(
            TourQuestion(title, question, prompt, self.lang),
            self.answered,
        )

    def answered(self, given: str | None) -> None:
        """The reader's prediction (None: skipped for now; ``w`` asks again)."""
        if given is None or self.tour is None:
            return
        self.tour.answer(given)
        self.reveal()

    def reveal(self) -> None:
        from tracer.replay.tour_cards import reveal_card, stop_title
        from tracer.replay.widgets.tour_screen import TourCard

        tour = self.tour
        assert tour is not None and tour.current.question is not None
        self.go(tour.current.question.land)
        self.push_screen(
            TourCard(
                stop_title(tour, self.lang),
                reveal_card(tour, self.lang),
            )
        )

    def action_tour_next(self) -> None:
        from tracer.replay.tour_cards import done_card
        from tracer.replay.widgets.tour_screen import TourCard

        tour = self.tour
        if tour is None:
            self.notify(say("not_in_tour", self.lang))
            return
        if tour.current.question is not None and tour.answered() is None:
            self.show_stop()  # skipped earlier: ask again before moving on
            return
        if tour.at_end:
            self.push_screen(
                TourCard(
                    say("last_stop", self.lang),
                    done_card(tour, self.guide, self.lang),
                )
            )
            return
        tour.move(1)
        self.show_stop()

    def action_tour_back(self) -> None:
        tour = self.tour
        if tour is None:
            self.notify(say("not_in_tour", self.lang))
            return
        if tour.position == 0:
            self.notify(say("first_stop", self.lang))
            return
        tour.move(-1)
        self.show_stop()

    def render_tour_bar(self) -> None:
        from textual.widgets import Static

        tour = self.tour
        key = (tour.position, self.lang) if tour is not None else None
        if key == self._tour_bar_key:
            return  # unchanged: no repaint on every step
        self._tour_bar_key = key
        bar = self.query_one("#tour-bar", Static)
        bar.set_class(tour is not None, "shown")
        if tour is not None:
            tour.progress.lang = self.lang  # saved with the next move or answer
            bar.update(
                " "
                + say("tour", self.lang, n=tour.position + 1, total=len(tour.stops))
                + " · "
                + say("tour_keys", self.lang)
            )


def _full(checkpoint: Any) -> Any:
    """A checkpoint with the fields :func:`answer_step` reads (a test's stub may lack some)."""
    if hasattr(checkpoint, "turn") and hasattr(checkpoint, "nth"):
        return checkpoint
    from types import SimpleNamespace

    return SimpleNamespace(
        id=checkpoint.id,
        stage=checkpoint.stage,
        turn=getattr(checkpoint, "turn", None),
        nth=getattr(checkpoint, "nth", 1),
        ask=getattr(checkpoint, "ask", None),
    )
