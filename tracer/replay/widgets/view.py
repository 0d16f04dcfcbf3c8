"""The replay's panels, and drawing one step in all of them.

Layout (see ``replay.tcss``): the journey strip with "turn T · step S/N" on top, the one-line
orientation, the notice and the tour bar; the frame (:mod:`tracer.replay.widgets.frame`) with the
timeline on the left, the step view over the findings panel (key ``d``, hidden until asked for)
and the debug console in the middle, the chapter column on the right; then the transport (the
clickable progress bar, which owns the step keys), the search bar and the key bar. Under 110
columns the timeline and the chapter fold away behind ``T`` and ``c``.

The view is what the screen draws on: the screen (:mod:`tracer.replay.screen`) holds the cursor
and calls :meth:`ReplayView.show` whenever it moves (attributes down), and
:meth:`ReplayView.reset` when another trace is opened. Each panel keeps what it needs to draw
cheaply (nothing is precomputed per step, so a step costs the same on a 10-turn trace and a
10,000-turn one) and says what the reader did with a message that bubbles through the view to
the screen (messages up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.debug_console import DebugConsole
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.journey import JourneyStrip
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.notice import Notice
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.replay.widgets.tour_bar import TourBar
from tracer.text.cells import cells
from tracer.view import context
from tracer.view.diagnose import DoctorWatch
from tracer.view.i18n import position, tr
from tracer.view.opening import WaitingReader
from tracer.view.state import ReplayState
from tracer.view.status import status_line, subagent_note

if TYPE_CHECKING:
    from tracer.tour.stops import Tour
    from tracer.view.sections import Contents


class ReplayView(Vertical):
    """Every panel of the replay, drawn for the step the screen says."""

    def __init__(
        self,
        state: ReplayState,
        *,
        lang: str,
        follow: bool,
        guide: Any,
        guide_problem: str | None,
        contents: Contents | None,
        tour: Tour | None,
        doctor: DoctorWatch,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.state, self.lang, self.follow = state, lang, follow
        self.guide, self.guide_problem = guide, guide_problem
        self.contents, self.tour, self.doctor = contents, tour, doctor
        self.transport = StepBar(state, follow=follow, id="step-bar")
        """The progress bar, the step keys and autoplay."""

    def compose(self) -> ComposeResult:
        yield JourneyStrip()
        yield Static(self.orientation(self.lang), id="orient")
        yield Notice(id="notice")
        yield TourBar(self.tour, self.guide, id="tour-bar")
        with Frame(id="main"):
            yield Timeline(self.state.index)
            with Vertical(id="centre"):
                yield StageView(id="stage")
                yield FindingsPanel(self.doctor, lang=self.lang, id="findings")
                yield DebugConsole(id="debug")
            yield ChapterColumn(
                self.guide, self.guide_problem, self.contents, lang=self.lang, id="chapter"
            )
        yield self.transport
        yield SearchBar(self.state.index, lang=self.lang, id="search-bar")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.query_one(TourBar).set_language(self.lang)
        self.query_one(Frame).apply()  # the panels that fit, before the first step is drawn

    def reset(self, state: ReplayState) -> None:
        """Another trace was opened: every panel forgets the old one."""
        self.state = state
        self.query_one(StepBar).state = state
        self.query_one(Timeline).reset(state.index)
        self.query_one(SearchBar).reset(state.index)
        self.query_one(ChapterColumn).forget()

    def orientation(self, lang: str) -> str:
        """The first screen's words: what ①–④ and 1–4 are, ``?``, and (off the tour) ``s``'s
        contents and ``tracer tour``; on one line where it fits, else on two (80 columns)."""
        first = tr("orient", lang)
        if self.tour is not None:  # on the tour already, and its bar is the row under this one
            return first
        more = tr("orient_more", lang)
        one_line = f"{first} · {more}"
        width = self.app.size.width if self.is_attached else 0
        return one_line if width and cells(one_line) + 2 <= width else f"{first}\n{more}"

    def status(self, lang: str, indexing: bool) -> str:
        """The words on the right of the journey strip: following, indexing, checking, playing,
        inside which subagent's loop."""
        autoplay = self.transport.autoplay
        return status_line(
            lang,
            following=self.follow,
            ended=self.state.ended,
            indexing=indexing,
            checking=self.query_one(FindingsPanel).state == "checking",
            playing=autoplay.steps_per_second if autoplay.playing else None,
            loop=self.state.loop(),
        )

    def show(self, step: int, lang: str, indexing: bool) -> None:
        """Draw ``step`` of the open trace in every panel (``indexing``: the trace is still
        being indexed in the background)."""
        state, index, findings = self.state, self.state.index, self.query_one(FindingsPanel)
        stage_view, search_bar, frame = (
            self.query_one(StageView),
            self.query_one(SearchBar),
            self.query_one(Frame),
        )
        self.query_one(KeyBar).show(lang, self.transport.autoplay.playing)
        self.query_one(ChapterColumn).lang = lang  # (its ``s`` lists the sections in it)
        search_bar.step = step
        findings.show(findings.diagnosis, lang, findings.state)
        if not self.follow:  # a file still being written is expected to look torn
            reader = index.reader
            # Whether it ended is known once the reader has found its last line.
            ended = reader.complete if getattr(reader, "scanned_all", True) else True
            self.query_one(Notice).show(reader.torn_line, ended, len(index), lang)
        if not len(index):
            waiting = isinstance(index.reader, WaitingReader)
            words = (
                tr("waiting_for", lang, path=index.reader.path) if waiting else tr("no_steps", lang)
            )
            stage_view.show(Text(words, style="dim"))
            self.query_one(JourneyStrip).show(
                "session", 0, -1, 0, lang, self.status(lang, indexing)
            )
            frame.caption = ""
            return
        lighter, place, turn = search_bar.lighter(), state.place(step), index.turn(step)
        status = self.status(lang, indexing)
        self.query_one(JourneyStrip).show(
            index.stage(step), turn, step, len(index), lang, status, place
        )
        stage_view.border_subtitle = place
        where = position(lang, turn, step + 1, len(index))
        frame.caption = f"{where} · {tr('zoom_hint', lang)}"
        screen = self.screen
        zoomed = screen.maximized if self.app.screen is screen else None
        if zoomed is not None:  # keep the zoomed panel's "turn · step" current
            if zoomed is stage_view:
                frame.keep_subtitle(stage_view, place)
            frame.zoomed(zoomed)
        orient = self.query_one("#orient", Static)
        if step != state.start and orient.display:
            orient.display = False  # the reader has found the keys: give the row back
        elif orient.display and str(orient.content) != (words := self.orientation(lang)):
            # Only when it shows and its words changed: an update lays the screen out again,
            # and every panel is drawn anew (most of a step's time, on every step).
            orient.update(words)
        self.query_one(Timeline).show(step, lang)
        self.query_one(StepBar).show(step, len(index))
        note = subagent_note(state.subagent_at(step), lang)
        stage_view.show_step(index, step, lang, lighter, note)
        total, lines = context.debug_lines(index, step, keep=64, lang=lang)
        self.query_one(DebugConsole).show_lines(total, lines, lang, lighter)
        query = search_bar.query_text if lighter is not None else ""
        self.query_one(ChapterColumn).show_step(
            index, step, lang, state.recording, state.scenario, lighter, query
        )
        if search_bar.active:
            search_bar.show_count(step)
        self.query_one(TourBar).refresh_bar()
