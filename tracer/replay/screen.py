"""The replay screen: a recorded session, one step at a time, beside the chapter.

Layout (see ``replay.tcss``): the journey strip with "turn T · step S/N" on top; the timeline on
the left; in the middle the step view over the findings panel (key ``d``, hidden until asked
for) and the debug console; the chapter panel on the right; then a clickable progress bar, the
search bar and the key bar. Under 110 columns the timeline and the chapter fold away behind ``T``
and ``c`` (the frame, :mod:`tracer.replay.widgets.frame`, plans it again on every resize).

Textual's rule, "attributes down, messages up", shapes it. The screen is a coordinator: it holds
the cursor (:attr:`ReplayScreen.step`, reactive: every change redraws) and the trace, and hands
each widget what it shows. Each panel is a widget in its own file under ``widgets/``, with its
own keys and state: the step view keeps its mode (folded, unfolded, raw), the search bar its
query and hits, the findings panel the doctor's run, the frame the layout, the chapter column
its checkpoints, the tour bar (:mod:`tracer.tour.bar`) the tour. A widget never moves the
cursor; it posts a message (``Timeline.Selected``, ``StepBar.Seek``, ``FindingsPanel.Selected``,
``SearchBar.Found``, ``TourBar.Go``) and the screen, in its ``@on`` handlers, moves. Nothing is
precomputed per step, so a step costs the same on a 10-turn trace and a 10,000-turn one. The
step keys are the screen's, so they work from any panel (and not under a dialog, which is modal).

The app around it (:class:`tracer.replay.app.ReplayApp`) keeps only the style sheet and the
command palette, and shows this screen. It mirrors no single Claude Code file: it replays what
``query.ts``'s loop (``queryLoop``) recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from tracer.printable import printable
from tracer.replay import context, search
from tracer.replay.autoplay import Autoplay
from tracer.replay.diagnose import Diagnosis
from tracer.replay.guide import load_guide
from tracer.replay.i18n import LANGS, tr
from tracer.replay.keys import KEYS
from tracer.replay.nesting import Nesting
from tracer.replay.opening import WaitingReader, choices
from tracer.replay.sections import Contents, recording_info, section_for_step
from tracer.replay.status import status_line
from tracer.replay.steps import (
    CHUNK,
    Cursor,
    StepIndex,
    clamp,
    next_of_stage,
    next_turn,
    previous_turn,
)
from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.debug_console import DebugConsole
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.journey import JourneyStrip
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.notice import Notice
from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.picker import PickerScreen
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.screens import GotoScreen, HelpScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import BLOCK_MARK, StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.tour.bar import TourBar
from tracer.trace.events import STATIONS

if TYPE_CHECKING:
    from tracer.tour.stops import Tour

#: How often ``--follow`` looks for new lines, in seconds.
FOLLOW_INTERVAL = 0.25


class ReplayScreen(Screen[None]):
    """Step through a trace. Keys work the same in both languages (Chinese punctuation too)."""

    AUTO_FOCUS = "#stage"  # the step view has the keys; Tab moves them to another panel
    BINDINGS = KEYS

    step: var[int] = var(0, always_update=True, init=False)
    """The cursor: the 0-based step on screen. Every change redraws every panel."""

    def __init__(
        self,
        index: StepIndex,
        *,
        step: int = 0,
        lang: str = "en",
        follow: bool = False,
        guide: object | None = None,
        guide_problem: str | None = None,
        load_chapter_guide: bool = True,
        doctor: bool = False,
        jump_to_finding: bool | None = None,
        diagnosis: Diagnosis | None = None,
        tour: Tour | None = None,
    ) -> None:
        super().__init__()
        self.lang = lang if lang in LANGS else "en"
        self.follow = follow
        self.feed: Callable[[], object] | None = None
        """With ``replay --follow <transcript>``: called on each poll to import new lines."""
        if guide is None and load_chapter_guide:
            guide, guide_problem = load_guide()
        self.guide: Any = guide
        self.guide_problem = guide_problem
        self.tour = tour
        self.doctor = doctor
        self._jump_to_finding = doctor if jump_to_finding is None else jump_to_finding
        self._known_diagnosis = diagnosis
        self._contents: Contents | None = None
        self.autoplay = Autoplay(self.set_interval, self._autoplay_tick)
        self.filtering = False
        self.indexing = False
        self._set_trace(index, step)

    def _set_trace(self, index: StepIndex, step: int) -> None:
        """Make ``index`` the trace on screen (the widgets are told by :meth:`_trace_changed`)."""
        self.index = index
        self.cursor = Cursor(index, step)
        self.nesting = Nesting(index, lazy=True)
        """Subagents' nested loops: step over them, into them (Enter), out of them (Esc)."""
        header = getattr(index.reader, "header", {}) or {}
        source = header.get("source") or {}
        self.scenario = source.get("name") if isinstance(source, dict) else None
        self.recording = recording_info(Path(index.reader.path), header)
        self._start_step = self.cursor.step
        self._diagnosed_complete = self._doctor_reported = False
        self.set_reactive(ReplayScreen.step, self.cursor.step)

    # -- building the screen ---------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield JourneyStrip()
        yield Static(tr("orient", self.lang), id="orient")
        yield Notice(id="notice")
        yield TourBar(self.tour, self.guide, id="tour-bar")
        with Frame(id="main"):
            yield Timeline(self.index)
            with Vertical(id="centre"):
                yield StageView(id="stage")
                yield FindingsPanel(id="findings")
                yield DebugConsole(id="debug")
            yield ChapterColumn(self.guide, self.guide_problem, id="chapter")
        yield StepBar()
        yield SearchBar(self.index, id="search-bar")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.set_reactive(ReplayScreen.step, self.cursor.step)  # (a caller may have moved it)
        self.query_one(TourBar).set_language(self.lang)
        self.findings.check(self.index, self.doctor, self._known_diagnosis)
        self.frame.apply()
        self.render_step()
        if not self.index.complete:
            self.indexing = True
            self.call_after_refresh(self.finish_index)  # after the first frame is on screen
        if self.follow:
            self.set_interval(FOLLOW_INTERVAL, self.poll)
        if self.tour is not None:
            self.call_after_refresh(self.query_one(TourBar).show_stop)

    @property
    def stage_view(self) -> StageView:
        return self.query_one(StageView)

    @property
    def findings(self) -> FindingsPanel:
        return self.query_one(FindingsPanel)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    @property
    def matches(self) -> list[int]:
        return self.search_bar.matches

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self.findings.diagnosis

    @property
    def ended(self) -> bool:
        """Whether the session's end (its ``terminal`` step) has been read."""
        count = len(self.index)
        return bool(count) and self.index.complete and self.index.stage(count - 1) == "terminal"

    @work(thread=True, exclusive=True, group="index")
    def finish_index(self) -> None:
        """Index the rest of a long trace after the first frame; the count fills in as it goes."""
        worker = get_current_worker()
        while not self.index.complete and not worker.is_cancelled:
            self.index.extend(CHUNK)
            self.app.call_from_thread(self._indexed)

    def _indexed(self) -> None:
        self.indexing = not self.index.complete
        self.render_step()

    # -- opening another trace -------------------------------------------------------------

    def open_trace(self, path: Path, step: int = 0) -> None:
        """Replay ``path`` from 0-based ``step`` in place of the current trace (the picker, the
        palette, the contents, the tour, a followed file that has just appeared). Just move
        if it is already open."""
        from tracer.errors import UserError
        from tracer.paths import short_name
        from tracer.trace.reader import TraceReader

        current = getattr(self.index.reader, "path", None)
        if current is not None and _same(Path(path), Path(current)) and len(self.index):
            self.go(step)
            return
        try:
            reader = TraceReader(path)
        except UserError as exc:
            self.notify(str(exc), severity="error")
            return
        for group in ("index", "search"):  # work on the old trace is no longer wanted
            self.workers.cancel_group(self, group)
        index = StepIndex(reader, eager=False)
        index.extend_until(lambda: index.complete or len(index) > step)
        self._set_trace(index, clamp(index, step) if len(index) else 0)
        timeline = self.query_one(Timeline)
        timeline.index, timeline._rows_key = index, None  # its row cache belongs to the old one
        timeline.set_filter(None)
        timeline.set_marks({})
        self.search_bar.reset(index)
        self.query_one(ChapterColumn).forget()
        self.filtering = False
        self.findings.check(index, self.doctor)
        self.indexing = not index.complete
        if self.indexing:
            self.finish_index()
        self.render_step()
        self.notify(tr("opened", self.lang, name=short_name(Path(path))), timeout=2)

    # Kept for callers that think in recordings (the contents, the tests).
    open_recording = open_trace

    def open_chosen(self, path: Path) -> None:
        """Open what the reader chose in the picker or the palette: a trace, or a Claude Code
        transcript, imported first (in a thread: a long session takes a moment)."""
        from tracer.importers.live import is_transcript

        if is_transcript(Path(path)):
            self.notify(tr("importing", self.lang, name=Path(path).name), timeout=3)
            self._import_and_open(Path(path))
            return
        from tracer.replay.sources import remember

        remember(Path(path))
        self.open_trace(path)

    @work(thread=True, exclusive=True, group="import")
    def _import_and_open(self, transcript: Path) -> None:
        from tracer.errors import UserError
        from tracer.replay.sources import import_session

        try:
            trace = import_session(transcript)
        except (UserError, OSError) as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.open_trace, trace)

    def action_open_picker(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.open_chosen(path)

        current = getattr(self.index.reader, "path", None)
        self.app.push_screen(PickerScreen(self.lang, choices(), current), chosen)

    def poll(self) -> None:
        """``--follow``: pick up lines the recorder appended; stay at the end if we were there.

        A file that did not exist yet is opened as soon as its header line is written."""
        reader = self.index.reader
        if isinstance(reader, WaitingReader):
            if reader.ready():
                self.open_trace(reader.path)
            return
        if self.feed is not None:
            self.feed()  # a live import writes what Claude Code appended since the last tick
        untouched = self.cursor.step == self._start_step
        if not self.indexing and self.cursor.refresh():
            if untouched:  # following the end is not the reader moving (--doctor still jumps)
                self._start_step = self.cursor.step
            self.step = self.cursor.step
            self._recheck_when_finished()

    # -- showing a step --------------------------------------------------------------------

    def watch_step(self) -> None:
        self.render_step()

    def go(self, step: int) -> None:
        self.cursor.go(step)
        self.step = self.cursor.step

    def status(self) -> str:
        if self.index.complete:  # (a huge trace: once the background indexing is done)
            self.nesting.update()
        loop = self.nesting.loop_of(self.step) if self.nesting.any and len(self.index) else None
        return status_line(
            self.lang,
            following=self.follow,
            ended=self.ended,
            indexing=self.indexing,
            checking=self.findings.state == "checking",
            playing=self.autoplay.steps_per_second if self.autoplay.playing else None,
            loop=loop,
        )

    def render_step(self) -> None:
        """Draw the current step in every widget (attributes down)."""
        index, step, lang = self.index, self.step, self.lang
        self.query_one(KeyBar).show(lang, self.autoplay.playing)
        self.findings.show(self.diagnosis, lang, self.findings.state)
        if not self.follow:  # a file still being written is expected to look torn
            reader = index.reader
            self.query_one(Notice).show(reader.torn_line, reader.complete, len(index), lang)
        if not len(index):
            waiting = isinstance(index.reader, WaitingReader)
            words = (
                tr("waiting_for", lang, path=index.reader.path) if waiting else tr("no_steps", lang)
            )
            self.stage_view.show(Text(words, style="dim"))
            self.query_one(JourneyStrip).show("session", 0, -1, 0, lang, self.status())
            self.frame.caption = ""
            return
        stage = index.stage(step)
        lighter = self.search_bar.lighter()
        place = self.place(step)
        self.query_one(JourneyStrip).show(
            stage, index.turn(step), step, len(index), lang, self.status(), place
        )
        self.stage_view.border_subtitle = place
        where = tr("turn_step", lang, turn=index.turn(step), step=step + 1, total=len(index))
        self.frame.caption = f"{where} · {tr('zoom_hint', lang)}"
        zoomed = self.maximized if self.app.screen is self else None
        if zoomed is not None:  # keep the zoomed panel's "turn · step" current
            if zoomed is self.stage_view:
                self.frame.keep_subtitle(self.stage_view, place)
            self.frame.zoomed(zoomed)
        orient = self.query_one("#orient", Static)
        if step != self._start_step and orient.display:
            orient.display = False  # the reader has found the keys: give the row back
        else:
            orient.update(tr("orient", lang))
        self.query_one(Timeline).show(step, lang)
        self.query_one(StepBar).show(step, len(index))
        self.stage_view.show_step(index, step, lang, lighter)
        total, lines = context.debug_lines(index, step, keep=64, lang=lang)
        self.query_one(DebugConsole).show_lines(total, lines, lang, lighter)
        query = self.search_bar.query_text if lighter is not None else ""
        self.query_one(ChapterColumn).show_step(
            index, step, lang, self.recording, self.scenario, lighter, query
        )
        if self.search_bar.active:
            self.search_bar.show_count(step)
        self.query_one(TourBar).refresh_bar()

    def place(self, step: int) -> str:
        """Where the reader is: the recording's name, and the subagents' loops around ``step``."""
        from tracer.paths import short_name

        parts = [short_name(Path(self.index.reader.path)), *self.nesting.path(step)]
        return printable(" › ".join(parts))  # a file name and a loop name are input

    def checkpoints_here(self, step: int) -> list[str]:
        """Ids of the checkpoints whose step is ``step`` in this recording."""
        return self.query_one(ChapterColumn).checkpoints_here(self.index, self.recording, step)

    # -- what the widgets say (messages up) ------------------------------------------------

    @on(Timeline.Selected)
    @on(StepBar.Seek)
    @on(FindingsPanel.Selected)
    def _chosen(self, message: Timeline.Selected | StepBar.Seek | FindingsPanel.Selected) -> None:
        self.go(message.step)

    @on(TourBar.Go)
    def _tour_goes(self, message: TourBar.Go) -> None:
        self.open_trace(message.recording, message.step)

    @on(StageView.ModeChanged)
    def _mode_changed(self) -> None:
        self.render_step()

    @on(FindingsPanel.Diagnosed)
    def _diagnosed(self, message: FindingsPanel.Diagnosed) -> None:
        """The doctor is done: mark the timeline and (``--doctor``) say what it found."""
        diagnosis = message.diagnosis
        self._diagnosed_complete = self.ended or (
            bool(len(self.index)) and self.index.stage(len(self.index) - 1) == "terminal"
        )
        self.query_one(Timeline).set_marks(diagnosis.marks)
        if (
            self.doctor
            and not self._doctor_reported
            and (self._diagnosed_complete or not self.follow)
        ):
            self._doctor_reported = True
            first = diagnosis.first_step
            if diagnosis.problem is not None:
                self.notify(
                    tr("doctor_failed", self.lang, problem=diagnosis.problem), severity="warning"
                )
            elif first is None:
                self.notify(tr("no_findings", self.lang))
            else:
                self.findings.add_class("shown")
                self.findings.focus()
                # Unless a step was asked for, or the reader moved while the doctor worked.
                if self._jump_to_finding and self.step == self._start_step:
                    self.go(first)
                    # The step view first: bring the block the finding is about into view
                    # (once laid out, so the lines are wrapped to the real width).
                    self.call_after_refresh(self._show_block)
                    return
        self.render_step()

    def _show_block(self) -> None:
        stage = self.stage_view
        if len(stage.plain_lines()) > stage.content_size.height:  # only when it does not fit
            stage.toggle_mark(BLOCK_MARK)

    def _recheck_when_finished(self) -> None:
        """A followed trace was checked while it grew: check it again once it has ended."""
        if not self._diagnosed_complete and self.ended and not self.findings.state:
            self.findings.recheck(self.doctor)

    @on(SearchBar.Done)
    def _search_done(self) -> None:
        self.stage_view.focus()

    @on(SearchBar.Found)
    def _found(self, message: SearchBar.Found) -> None:
        if message.again:
            self.action_match(1)
            return
        if self.filtering:
            self.query_one(Timeline).set_filter(message.matches or None)
        target = search.next_match(message.matches, self.step - 1)
        self.go(target if target is not None else self.step)  # the highlights changed anyway
        self._reveal_hit()

    @on(SearchBar.Cleared)
    def _search_cleared(self) -> None:
        if self.filtering:
            self.filtering = False
            self.query_one(Timeline).set_filter(None)
        self.render_step()

    def _reveal_hit(self) -> None:
        """Scroll the step view (and the chapter panel) to the first hit, where it is seen."""
        found = search.pattern(self.search_bar.query_text)
        if found is not None:
            for panel in self.query(Pager):
                self.call_after_refresh(panel.reveal, found)

    # -- moving ----------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.nesting.update()
        self.go(self.nesting.step_over(self.step, delta))

    def action_step_into(self) -> None:
        self.nesting.update()
        target = self.nesting.enter(self.step)
        if target is not None:
            self.go(target)

    def action_enter(self) -> None:
        """Enter: into the subagent's loop on a Task call that ran one, else unfold."""
        self.nesting.update()
        target = self.nesting.enter(self.step)
        if target is None:
            self.stage_view.action_unfold()
        else:
            self.go(target)

    def action_step_out(self) -> None:
        self.nesting.update()
        target = self.nesting.leave(self.step)
        if target is not None:
            self.go(target)

    def action_escape(self) -> None:
        """Escape: put out the search (less's way), else leave the subagent's loop."""
        if not self.search_bar.clear():
            self.action_step_out()

    def action_first(self) -> None:
        self.go(0)

    def action_last(self) -> None:
        self.go(len(self.index) - 1)

    def action_next_turn(self) -> None:
        self.go(next_turn(self.index, self.step))

    def action_previous_turn(self) -> None:
        self.go(previous_turn(self.index, self.step))

    def action_station(self, number: int) -> None:
        target = next_of_stage(self.index, self.step, STATIONS[number - 1])
        if target is not None:
            self.go(target)

    def action_goto(self) -> None:
        def chosen(step: int | None) -> None:
            if step is not None:
                self.go(step)
                self.set_focus(self.stage_view)

        self.app.push_screen(GotoScreen(self.lang, len(self.index)), chosen)

    # -- search ----------------------------------------------------------------------------

    def action_search(self) -> None:
        self.search_bar.open(self.lang)

    def action_match(self, direction: int) -> None:
        target = search.next_match(self.matches, self.step, forward=direction > 0)
        if target is not None:
            self.go(target)
            self._reveal_hit()

    def action_next(self) -> None:
        """``n``: the next hit while there is a search, else the next turn (as before)."""
        if self.matches and self.search_bar.active:
            self.action_match(1)
        else:
            self.action_next_turn()

    def action_filter(self) -> None:
        """``f``: the timeline lists only the matching steps (again: every step)."""
        self.filtering = not self.filtering and bool(self.matches)
        self.query_one(Timeline).set_filter(self.matches if self.filtering else None)
        if self.filtering:
            self.frame.show_panel("timeline")  # a filter is no use unseen

    # -- the frame: layout, zoom, modes, copy ----------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.query_one(Frame)

    def action_timeline(self) -> None:
        self.frame.toggle("timeline")

    def action_chapter(self) -> None:
        self.frame.toggle("chapter")

    def action_debug(self) -> None:
        self.frame.toggle("debug")

    def action_findings(self) -> None:
        panel = self.findings
        panel.toggle_class("shown")
        if panel.has_class("shown"):
            if panel.check_waiting():  # a huge trace: check it now that it is wanted
                self.render_step()
            panel.focus()  # ↑ ↓ choose a finding, Enter jumps to it
        else:
            self.stage_view.focus()  # the step view has the keys again

    def action_zoom(self) -> None:
        """``z``: the focused panel fills the screen; ``z`` or Escape (Textual's own) restores
        it. The header and the key bar are hidden then, so the panel's bottom border says
        where the reader is and how to come back."""
        self.frame.toggle_zoom(self.focused or self.stage_view)

    def action_unfold(self) -> None:
        self.stage_view.action_unfold()

    def action_raw(self) -> None:
        self.stage_view.action_raw()

    def action_block(self) -> None:
        self.stage_view.action_block()

    def action_copy(self) -> None:
        """Copy the focused panel's text (the raw JSON itself in raw mode)."""
        if not len(self.index):
            return
        focused = self.focused
        if isinstance(focused, Pager) and not isinstance(focused, StageView):
            text = printable(focused.text.plain, lines=True)  # what is copied is what is shown
        else:
            text = self.stage_view.copy_text()
        self.app.copy_to_clipboard(text)
        self.notify(tr("copied", self.lang, n=text.count("\n") + 1), timeout=2)

    # -- autoplay and settings -------------------------------------------------------------

    def action_autoplay(self) -> None:
        if not self.autoplay.playing and self.cursor.at_end and not self.follow:
            self.cursor.go(0)  # at the end, play again from the start
        self.autoplay.toggle()
        self.step = self.cursor.step

    def _autoplay_tick(self) -> bool:
        if self.cursor.at_end and not self.follow:
            self.call_after_refresh(self.render_step)  # drop the "autoplay" label
            return False
        self.go(self.step + 1)
        return True

    def action_speed(self, delta: int) -> None:
        self.autoplay.change_speed(delta)
        self.render_step()

    def action_language(self) -> None:
        self.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]
        bar = self.search_bar
        bar.set_language(self.lang)
        self.query_one(TourBar).set_language(self.lang)
        self.render_step()
        if bar.active:
            bar.start(bar.query_text)  # the text on screen changed language: search it again

    def action_scroll_stage(self, lines: int) -> None:
        self.stage_view.scroll_lines(lines)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.lang))

    # -- the table of contents and the tour ------------------------------------------------

    def contents(self) -> Contents | None:
        if self.guide is None:
            return None
        if self._contents is None:
            from tracer.replay.sections import bundled_contents

            self._contents = bundled_contents(self.guide)
        return self._contents

    def action_contents(self) -> None:
        from tracer.replay.widgets.toc_screen import TocScreen

        contents = self.contents()
        if contents is None:
            return
        current = None
        if len(self.index):
            section, _ = section_for_step(
                self.guide, self.recording, self.index.stage(self.step), self.index.turn(self.step)
            )
            current = getattr(section, "id", None)

        def chosen(target: tuple[Path, int] | None) -> None:
            if target is not None:
                self.open_trace(*target)
                # The section it was opened for is in the chapter panel: show it, even when
                # a narrow screen keeps the panel folded.
                self.frame.show_panel("chapter")

        self.app.push_screen(TocScreen(contents, self.lang, current), chosen)

    def action_tour(self, move: str) -> None:
        """``w`` ``W`` ``v``: the tour bar makes the move (or says there is no tour)."""
        self.query_one(TourBar).key(move)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
