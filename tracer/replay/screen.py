"""The replay screen: a recorded session, one step at a time, beside the chapter.

Textual's rule, "attributes down, messages up", shapes it. The screen is the coordinator: it
holds the cursor and the open trace, a :class:`~tracer.view.state.ReplayState` (the pure step
logic), as reactives, and lays out the panels (:meth:`ReplayScreen.compose`; the layout is in
``replay.tcss``): the journey strip with "turn T · step S/N" on top, the orientation, the notice
and the tour bar; the frame (:mod:`tracer.replay.widgets.frame`) with the timeline on the left,
the step view over the findings panel (key ``d``) and the debug console in the middle, the
chapter column on the right; then the transport (the progress bar, which owns the step keys),
the search bar and the key bar.

Attributes down: each panel binds to the screen's reactives in ``compose`` (Textual's
``data_bind``, as toolong's ``LogView`` binds its lines): :attr:`ReplayScreen.step` (the
cursor), :attr:`ReplayScreen.lang`, and as it needs them :attr:`ReplayScreen.state` (the open
trace), :attr:`ReplayScreen.highlight` (the search's hits) and :attr:`ReplayScreen.activity`
(following, indexing, checking, playing). Each panel redraws itself in its own watchers, so a
new panel is a widget with ``step``/``lang`` reactives and a line in ``compose``, and nothing else
changes. Messages up: a panel never moves the cursor; it posts a message (``StepBar.Seek``,
``SearchBar.Hit``, ``Timeline.Selected``, ``TourBar.Go``…) and the screen, in its ``@on``
handlers, moves. The loader (:mod:`tracer.replay.widgets.loader`) brings traces in. Every key is
bound on the screen (:mod:`tracer.replay.keys`), so keys work from any panel and not under a
dialog, which is modal; the screen's own keys, and the ``to`` action a widget's keys pass through,
are the class it is built on (:class:`~tracer.replay.screen_keys.ScreenKeys`). It mirrors no
single Claude Code file: it replays what ``query.ts``'s loop (``queryLoop``) recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import var

from tracer.errors import UserError
from tracer.replay.autoplay import Autoplay
from tracer.replay.options import LOAD_GUIDE
from tracer.replay.screen_keys import ScreenKeys
from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.debug_console import DebugConsole
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.journey import JourneyStrip
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.loader import TraceLoader
from tracer.replay.widgets.notice import Notice
from tracer.replay.widgets.orientation import Orientation
from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.replay.widgets.tour_bar import TourBar
from tracer.view import search
from tracer.view.diagnose import Diagnosis, DoctorWatch
from tracer.view.i18n import LANGS, tr
from tracer.view.search import Highlight
from tracer.view.section_text import load_guide
from tracer.view.state import LAST, ReplayState
from tracer.view.status import Activity
from tracer.view.steps import StepIndex

if TYPE_CHECKING:
    from tracer.replay.options import ReplayOptions


class ReplayScreen(ScreenKeys):
    """Step through a trace. Keys work the same in both languages (Chinese punctuation too)."""

    AUTO_FOCUS = "#stage"  # the step view has the keys; Tab moves them to another panel

    step: var[int] = var(0, always_update=True, init=False)
    """The cursor: the 0-based step on screen. Every change (or the same step set again, to
    redraw) reaches every panel bound to it."""
    lang: var[str] = var("en", init=False)
    """The reader's language (``t`` switches it)."""
    state: var[ReplayState] = var(None, init=False)  # type: ignore[arg-type]  # set in __init__
    """The open trace and the reader's place in it (a new one for each trace opened)."""
    highlight: var[Highlight] = var(Highlight(), init=False)
    """The search whose hits the panels light (set before the panels hear of the step)."""
    activity: var[Activity] = var(Activity(), init=False)
    """What the replay is doing besides showing the step (set before the panels hear of it)."""

    def __init__(self, state: ReplayState, options: ReplayOptions) -> None:
        """``state``: the open trace at its first step; ``options``: what the command line (or a
        test) asked for (:class:`~tracer.replay.options.ReplayOptions`)."""
        super().__init__()
        self.options = options
        self.set_reactive(ReplayScreen.lang, options.lang if options.lang in LANGS else "en")
        self.set_reactive(ReplayScreen.state, state)
        self.set_reactive(ReplayScreen.step, state.step)
        guide, self.guide_problem = (
            load_guide() if options.guide is LOAD_GUIDE else (options.guide, None)
        )
        self.guide = guide
        self.tour, self._known_diagnosis = options.tour, options.diagnosis
        jump = options.doctor and not options.positioned  # a position asked for is kept
        self.doctor = DoctorWatch(options.doctor, jump=jump, following=options.follow)
        self.transport = StepBar(state, follow=options.follow, id="step-bar")
        """The progress bar, the step keys and autoplay."""
        self.loader = TraceLoader(
            state, lang=self.lang, follow=options.follow, feed=options.feed, id="loader"
        )

    def compose(self) -> ComposeResult:
        """Every panel, each bound to what it draws from (attributes down)."""
        step, lang, state = ReplayScreen.step, ReplayScreen.lang, ReplayScreen.state
        light, doing = ReplayScreen.highlight, ReplayScreen.activity
        follow, lang_now, index = self.options.follow, self.lang, self.state.index
        with Vertical(id="replay"):
            yield JourneyStrip().data_bind(step, lang, state, doing)
            yield Orientation(lang=lang_now, on_tour=self.tour is not None, id="orient").data_bind(
                step, lang, state
            )
            yield Notice(follow=follow, id="notice").data_bind(step, lang, state)
            yield TourBar(self.tour, self.guide, id="tour-bar").data_bind(step, lang)
            with Frame(id="main").data_bind(step, lang, state):
                yield Timeline(index).data_bind(step, lang, state)
                with Vertical(id="centre"):
                    yield StageView(id="stage").data_bind(step, lang, state, light)
                    yield FindingsPanel(self.doctor, lang=lang_now, id="findings").data_bind(
                        step, lang
                    )
                    yield DebugConsole(id="debug").data_bind(step, lang, state, light)
                yield ChapterColumn(
                    self.guide,
                    self.guide_problem,
                    self.options.contents,
                    lang=lang_now,
                    id="chapter",
                ).data_bind(step, lang, state, light)
            yield self.transport.data_bind(step, state)
            yield SearchBar(index, lang=lang_now, id="search-bar").data_bind(step, lang, state)
            yield KeyBar(id="keys").data_bind(step, lang, doing)
        yield self.loader.data_bind(lang)

    def on_mount(self) -> None:
        self.set_reactive(ReplayScreen.step, self.state.step)  # (a caller may have moved it)
        self.query_one(FindingsPanel).check(self.index, self._known_diagnosis)
        self.redraw()
        self.loader.track(self.state, after_first_frame=True)
        if self.tour is not None:
            self.call_after_refresh(self.query_one(TourBar).show_stop)

    @property
    def index(self) -> StepIndex:
        return self.state.index

    @property
    def matches(self) -> list[int]:
        return self.query_one(SearchBar).matches

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self.query_one(FindingsPanel).diagnosis

    @property
    def autoplay(self) -> Autoplay:
        """The transport's autoplay (``a``)."""
        return self.transport.autoplay

    def open_trace(self, path: Path, step: int = 0) -> None:
        """Replay ``path`` from 0-based ``step`` in place of the current trace (the picker, the
        palette, the contents, the tour, a followed file now written); if open already, move."""
        from tracer.files.paths import short_name

        if self.state.shows(path):
            self.go(self.state.last() if step == LAST else step)
            return
        try:
            state = ReplayState.open(path, step)
        except UserError as exc:
            self.notify(str(exc), severity="error")
            return
        self.set_reactive(ReplayScreen.step, state.step)
        self.state = state  # every panel bound to it starts afresh on it
        self.query_one(FindingsPanel).check(self.index)
        self.loader.track(self.state)
        self.redraw()
        self.notify(tr("opened", self.lang, name=short_name(Path(path))), timeout=2)

    def watch_step(self) -> None:
        """Before the panels hear of the step: the search they light, what the replay is doing."""
        if not self.transport.is_mounted:
            return  # (the panels are not there yet)
        bar = self.query_one(SearchBar)
        light = bar.lighter()
        query = bar.query_text if light is not None else ""
        self.highlight = Highlight(query, light)
        autoplay = self.autoplay
        self.activity = Activity(
            following=self.options.follow,
            indexing=self.loader.indexing,
            checking=self.query_one(FindingsPanel).state == "checking",
            playing=autoplay.steps_per_second if autoplay.playing else None,
        )

    def go(self, step: int) -> None:
        self.step = self.state.go(step)

    def redraw(self) -> None:
        """Every panel draws the cursor's step again (something besides the step changed: the
        trace grew, a search ended, autoplay started…): the same step, set again."""
        self.step = self.state.step

    # -- what the widgets say (messages up) ------------------------------------------------

    @on(StepBar.Seek)
    def _seek(self, message: StepBar.Seek) -> None:
        target = message.target(self.state)  # (from the cursor the previous key left)
        if target is not None:
            self.go(target)

    @on(Timeline.Selected)
    @on(FindingsPanel.Selected)
    def _chosen(self, message: Timeline.Selected | FindingsPanel.Selected) -> None:
        self.go(message.step)

    @on(StageView.ModeChanged)
    @on(StepBar.Changed)
    @on(TraceLoader.Indexed)
    def _redraw(self) -> None:
        self.redraw()

    @on(TourBar.Go)
    def _tour_goes(self, message: TourBar.Go) -> None:
        self.open_trace(message.recording, message.step)

    @on(TraceLoader.Open)
    def _load(self, message: TraceLoader.Open) -> None:
        # The followed file, written since the replay started: open it where its recorder is
        # (the last step so far), so the cursor is at the end and stays there as it grows.
        self.open_trace(message.path, LAST if message.at_end else 0)

    @on(ChapterColumn.Open)
    def _open_section(self, message: ChapterColumn.Open) -> None:
        self.open_trace(message.path, message.step)
        # The section it was opened for is in the chapter panel: show it, even when a narrow
        # screen keeps the panel folded.
        self.query_one(Frame).show_panel("chapter")

    @on(TraceLoader.Poll)
    def _follow(self) -> None:
        if self.state.follow():  # (at the end, the cursor stays at the end)
            self.step = self.state.step
            # Checked while it grew: the doctor checks it again once it has ended.
            self.query_one(FindingsPanel).recheck(self.state.ended)

    @on(FindingsPanel.Toggled)
    def _findings_toggled(self, message: FindingsPanel.Toggled) -> None:
        if not message.shown:
            self.query_one(StageView).focus()  # the step view has the keys again
        self.redraw()  # ("checking" when a huge trace is checked now that it is wanted)

    @on(FindingsPanel.Diagnosed)
    def _diagnosed(self, message: FindingsPanel.Diagnosed) -> None:
        """The doctor is done: mark the timeline; ``--doctor``: go to the first finding."""
        self.query_one(Timeline).set_marks(message.diagnosis.marks)
        jump = message.reaction.jump
        if jump is None or not self.state.untouched:
            self.redraw()
            return
        self.go(jump)
        # The step view first: bring the block the finding is about into view (once laid out,
        # so the lines are wrapped to the real width).
        self.call_after_refresh(self.query_one(StageView).show_block)

    @on(SearchBar.Done)
    def _search_done(self) -> None:
        self.query_one(StageView).focus()

    @on(SearchBar.Found)
    def _found(self, message: SearchBar.Found) -> None:
        self.query_one(Timeline).filter_hits(message.matches)

    @on(SearchBar.Hit)
    def _hit(self, message: SearchBar.Hit) -> None:
        """Go to the hit (redraw anyway: the highlights changed), scroll the panels to it."""
        self.go(message.step)
        found = search.pattern(self.query_one(SearchBar).query_text)
        if found is not None:
            for panel in self.query(Pager):
                self.call_after_refresh(panel.reveal, found)

    @on(SearchBar.Cleared)
    def _search_cleared(self) -> None:
        self.query_one(Timeline).unfilter()
        self.redraw()
