"""The replay screen: a recorded session, one step at a time, beside the chapter.

Textual's rule, "attributes down, messages up", shapes it. The screen is the coordinator: it
holds the cursor (:attr:`ReplayScreen.step`, reactive: every change redraws the panels of the
view, :mod:`tracer.replay.widgets.view`) and the open trace, a
:class:`~tracer.view.state.ReplayState` (the pure step logic). The loader
(:mod:`tracer.replay.widgets.loader`) brings traces in. A panel never moves the cursor: it posts
a message (``StepBar.Seek``, ``SearchBar.Hit``, ``Timeline.Selected``, ``TourBar.Go``…) and the
screen, in its ``@on`` handlers, moves. Every key is bound here (:mod:`tracer.replay.keys`), so
keys work from any panel and not under a dialog, which is modal; a widget's own keys pass
through :meth:`ReplayScreen.action_to` to it. It mirrors no single Claude Code file: it replays
what ``query.ts``'s loop (``queryLoop``) recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.reactive import var
from textual.screen import Screen

from tracer.errors import UserError
from tracer.replay.autoplay import Autoplay
from tracer.replay.keys import KEYS
from tracer.replay.options import LOAD_GUIDE
from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.loader import TraceLoader
from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.screens import GotoScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.replay.widgets.tour_bar import TourBar
from tracer.replay.widgets.view import ReplayView
from tracer.view import search
from tracer.view.diagnose import Diagnosis, DoctorWatch
from tracer.view.i18n import LANGS, tr
from tracer.view.section_text import load_guide
from tracer.view.state import LAST, ReplayState
from tracer.view.steps import StepIndex

if TYPE_CHECKING:
    from tracer.replay.options import ReplayOptions


class ReplayScreen(Screen[None]):
    """Step through a trace. Keys work the same in both languages (Chinese punctuation too)."""

    AUTO_FOCUS = "#stage"  # the step view has the keys; Tab moves them to another panel
    BINDINGS = KEYS

    step: var[int] = var(0, always_update=True, init=False)
    """The cursor: the 0-based step on screen. Every change redraws every panel."""

    def __init__(self, state: ReplayState, options: ReplayOptions) -> None:
        """``state``: the open trace at its first step; ``options``: what the command line (or a
        test) asked for (:class:`~tracer.replay.options.ReplayOptions`)."""
        super().__init__()
        self.options = options
        self.lang = options.lang if options.lang in LANGS else "en"
        guide, guide_problem = (
            load_guide() if options.guide is LOAD_GUIDE else (options.guide, None)
        )
        self.guide = guide
        self.tour, self._known_diagnosis = options.tour, options.diagnosis
        self.state = state
        """The open trace and the reader's place in it (a new one for each trace opened)."""
        follow = options.follow
        jump = options.doctor and not options.positioned  # a position asked for is kept
        self.view = ReplayView(
            self.state,
            lang=self.lang,
            follow=follow,
            guide=guide,
            guide_problem=guide_problem,
            contents=options.contents,
            tour=self.tour,
            doctor=DoctorWatch(options.doctor, jump=jump, following=follow),
        )
        self.loader = TraceLoader(
            self.state, lang=self.lang, follow=follow, feed=options.feed, id="loader"
        )
        self.set_reactive(ReplayScreen.step, self.state.step)

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.loader

    def on_mount(self) -> None:
        self.set_reactive(ReplayScreen.step, self.state.step)  # (a caller may have moved it)
        self.query_one(FindingsPanel).check(self.index, self._known_diagnosis)
        self.render_step()
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
        return self.view.transport.autoplay

    def open_trace(self, path: Path, step: int = 0) -> None:
        """Replay ``path`` from 0-based ``step`` in place of the current trace (the picker, the
        palette, the contents, the tour, a followed file now written); if open already, move."""
        from tracer.files.paths import short_name

        if self.state.shows(path):
            self.go(self.state.last() if step == LAST else step)
            return
        try:
            self.state = ReplayState.open(path, step)
        except UserError as exc:
            self.notify(str(exc), severity="error")
            return
        self.set_reactive(ReplayScreen.step, self.state.step)
        self.view.reset(self.state)
        self.query_one(FindingsPanel).check(self.index)
        self.loader.track(self.state)
        self.render_step()
        self.notify(tr("opened", self.lang, name=short_name(Path(path))), timeout=2)

    def watch_step(self) -> None:
        self.render_step()

    def go(self, step: int) -> None:
        self.step = self.state.go(step)

    def render_step(self) -> None:
        """Draw the current step in every panel (attributes down)."""
        self.view.show(self.step, self.lang, self.loader.indexing)

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
        self.render_step()

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
        self.render_step()  # ("checking" when a huge trace is checked now that it is wanted)

    @on(FindingsPanel.Diagnosed)
    def _diagnosed(self, message: FindingsPanel.Diagnosed) -> None:
        """The doctor is done: mark the timeline; ``--doctor``: go to the first finding."""
        self.query_one(Timeline).set_marks(message.diagnosis.marks)
        jump = message.reaction.jump
        if jump is None or not self.state.untouched:
            self.render_step()
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
        self.render_step()

    # -- the screen's own keys (keys.py) ---------------------------------------------------

    async def action_to(self, widget: str, action: str) -> None:
        """A widget's key, bound here so it works from any panel: run its ``action`` there."""
        await self.query_one(f"#{widget}").run_action(action)

    def action_enter(self) -> None:
        """Enter: into the subagent's loop on a Task call that ran one, else unfold."""
        target = self.state.into()
        if target is None:
            self.query_one(StageView).action_unfold()
        else:
            self.go(target)

    def action_escape(self) -> None:
        """Escape: put out the search (less's way), else leave the subagent's loop."""
        if not self.query_one(SearchBar).clear():
            target = self.state.out()
            if target is not None:
                self.go(target)

    def action_next(self) -> None:
        """``n``: the next hit while there is a search, else the next turn (as before)."""
        bar = self.query_one(SearchBar)
        if bar.matches and bar.active:
            bar.action_hop(1)
        else:
            self.go(self.state.next_turn())

    def action_filter(self) -> None:
        """``f``: the timeline lists only the matching steps (again: every step)."""
        if self.query_one(Timeline).toggle_filter(self.matches):
            self.query_one(Frame).show_panel("timeline")  # a filter is no use unseen

    def action_goto(self) -> None:
        def chosen(step: int | None) -> None:
            if step is not None:
                self.go(step)
                self.set_focus(self.query_one(StageView))

        self.app.push_screen(GotoScreen(self.lang, len(self.index)), chosen)

    def action_copy(self) -> None:
        """Copy the focused panel's text (the raw JSON itself in raw mode)."""
        if len(self.index):
            focused = self.focused
            pager = focused if isinstance(focused, Pager) else self.query_one(StageView)
            text = pager.copy_text()
            self.app.copy_to_clipboard(text)
            self.notify(tr("copied", self.lang, n=text.count("\n") + 1), timeout=2)

    def action_language(self) -> None:
        self.lang = self.loader.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]
        bar = self.query_one(SearchBar)
        bar.set_language(self.lang)
        self.query_one(TourBar).set_language(self.lang)
        self.render_step()
        if bar.active:
            bar.start(bar.query_text)  # the text on screen changed language: search it again

    def ask_in_key_bar(self, words: str | None) -> bool:
        """Put ``words`` in the key bar in place of the keys (None: the keys again); False when
        the key bar is not in sight (a dialog is open, or a panel is zoomed)."""
        bar = self.query_one(KeyBar)
        bar.say(words)
        return self.app.screen is self and self.maximized is None and bar.display

    def action_tour(self, move: str) -> None:
        """``w`` ``W`` ``v``: the tour bar makes the move (or says there is no tour)."""
        self.query_one(TourBar).key(move)
