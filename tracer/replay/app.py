"""The replay app: a recorded session, one step at a time, beside the chapter.

Layout (see ``replay.tcss``): the journey strip with "turn T · step S/N" on top; the timeline on
the left; in the middle the stage view over the findings panel (key ``d``, hidden until asked
for) and the debug console; the chapter panel on the right; then a clickable progress bar, the
search bar and the key bar. Under 110 columns the timeline and the chapter fold away behind ``T``
and ``c`` (:mod:`tracer.replay.layout`, applied by :class:`~tracer.replay.frame.FrameControls`).

The app holds only the cursor and a few settings (language, autoplay speed, search matches). Every
move goes through :meth:`ReplayApp.go`, which asks the pure layers (:mod:`steps`, :mod:`render`,
:mod:`context`, :mod:`guide`) for text and hands it to the widgets. Nothing is precomputed per
step, so a step costs the same on a 10-turn trace and a 10,000-turn one.

The doctor's findings (markers, the panel on ``d``, ``--doctor``) live in
:class:`~tracer.replay.doctor_controls.DoctorControls`, the frame (layout, focus, zoom, unfold,
raw, copy) in :class:`~tracer.replay.frame.FrameControls` and search in
:class:`~tracer.replay.search_controls.SearchControls`, all mixed in here. The whole app mirrors
no single Claude Code file: it replays what ``query.ts``'s loop (``queryLoop``) recorded.

Build the app with :func:`tracer.replay.factory.make_app`, as the command line and tests do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static
from textual.worker import get_current_worker

from tracer.cells import clip
from tracer.replay import context, layout
from tracer.replay.autoplay import Autoplay
from tracer.replay.diagnose import Diagnosis
from tracer.replay.doctor_controls import DoctorControls
from tracer.replay.frame import FrameControls
from tracer.replay.guide import load_guide, step_text
from tracer.replay.i18n import LANGS, stage_name, tr
from tracer.replay.input_errors import InputErrorExit
from tracer.replay.keys import KEYS
from tracer.replay.navigation import NavigationControls
from tracer.replay.nesting import Nesting
from tracer.replay.open_controls import OpenControls
from tracer.replay.opening import WaitingReader
from tracer.replay.search_controls import SearchControls
from tracer.replay.section_panel import section_panel_text
from tracer.replay.sections import recording_info, section_for_step
from tracer.replay.steps import CHUNK, Cursor, StepIndex, next_of_stage, next_turn, previous_turn
from tracer.replay.widgets.debug_console import DebugConsole
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.journey import JourneyStrip
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.pager import ChapterPanel, StageView
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.screens import GotoScreen, HelpScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.timeline import Timeline
from tracer.trace.events import STATIONS

if TYPE_CHECKING:
    from tracer.tour.stops import Tour

#: How often ``--follow`` looks for new lines, in seconds.
FOLLOW_INTERVAL = 0.25


class ReplayApp(
    InputErrorExit,
    NavigationControls,
    FrameControls,
    SearchControls,
    OpenControls,
    DoctorControls,
    App[None],
):
    """Step through a trace. Keys work the same in both languages (Chinese punctuation too)."""

    TITLE = "tracer replay"
    CSS_PATH = Path(__file__).with_name("replay.tcss")  # absolute, so subclasses find it too
    AUTO_FOCUS = "#stage"  # the step view has the keys; Tab moves them to another panel
    BINDINGS = KEYS

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
        self.index = index
        self.cursor = Cursor(index, step)
        self.feed: Callable[[], object] | None = None
        """With ``replay --follow <transcript>``: called on each poll to import new lines."""
        self.nesting = Nesting(index, lazy=True)
        """Subagents' nested loops: step over them, into them (Enter), out of them (Esc)."""
        self.lang = lang if lang in LANGS else "en"
        self.follow = follow
        if guide is None and load_chapter_guide:
            guide, guide_problem = load_guide()
        self.guide, self.guide_problem = guide, guide_problem
        source = index.reader.header.get("source") or {}
        self.scenario = source.get("name") if isinstance(source, dict) else None
        self.recording = recording_info(index.reader.path, index.reader.header)
        self.tour = tour
        self._contents = None
        self._landings = None
        self.indexing = False
        self.autoplay = Autoplay(self.set_interval, self._autoplay_tick)
        self._chapter_key: tuple[str, str, tuple[str, ...]] | None = None
        self._section_key: tuple[str | None, str] | None = None
        self._notice: str | None = None
        self.diagnosis = diagnosis
        """The doctor's findings once known (None: not yet checked)."""
        self.doctor_state = ""
        """Why :attr:`diagnosis` is still None: "checking" (a thread is on it) or "waiting"
        (a huge trace, checked when the findings panel is first opened)."""
        self.doctor = doctor
        self._jump_to_finding = doctor if jump_to_finding is None else jump_to_finding
        self._start_step = self.cursor.step
        self._diagnosed_complete = False
        self._doctor_reported = False
        self.wishes = layout.Wishes()
        self.view_mode = "folded"
        self.filtering = False
        self._shown_step: int | None = None

    # -- building the screen ---------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield JourneyStrip()
        yield Static(id="notice")
        yield Static(id="tour-bar")
        with Horizontal(id="main"):
            yield Timeline(self.index)
            with Vertical(id="centre"):
                yield StageView(id="stage")
                yield FindingsPanel(id="findings")
                yield DebugConsole(id="debug")
            with Vertical(id="chapter"):
                yield ChapterPanel(tr("chapter", self.lang), id="chapter-step")
                yield ChapterPanel(id="chapter-section")
        yield StepBar()
        yield SearchBar(self.index, id="search-bar")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.start_doctor()
        self.apply_layout()
        self.render_step()
        if not self.index.complete:
            self.indexing = True
            self.call_after_refresh(self.finish_index)  # after the first frame is on screen
        if self.follow:
            self.set_interval(FOLLOW_INTERVAL, self.poll)
        if self.tour is not None:
            self.call_after_refresh(self.start_tour)

    @work(thread=True, exclusive=True, group="index")
    def finish_index(self) -> None:
        """Index the rest of a long trace after the first frame; the count fills in as it goes."""
        worker = get_current_worker()
        while not self.index.complete and not worker.is_cancelled:
            self.index.extend(CHUNK)
            self.call_from_thread(self._indexed)

    def _indexed(self) -> None:
        self.indexing = not self.index.complete
        self.render_step()

    # -- showing a step --------------------------------------------------------------------

    @property
    def step(self) -> int:
        return self.cursor.step

    def status(self) -> str:
        parts = []
        if self.follow:
            parts.append(tr("ended" if self.ended else "following", self.lang))
        if self.indexing:
            parts.append(tr("indexing", self.lang))
        if self.doctor_state == "checking":
            parts.append(tr("doctor_checking", self.lang))
        if self.autoplay.playing:
            parts.append(tr("playing", self.lang, speed=f"{self.autoplay.steps_per_second:g}"))
        if self.index.complete:  # (a huge trace: once the background indexing is done)
            self.nesting.update()
        loop = self.nesting.loop_of(self.step) if self.nesting.any and len(self.index) else None
        if loop is not None:
            parts.append(tr("in_subagent", self.lang, loop=clip(loop.loop, 14), depth=loop.depth))
        return " · ".join(parts)

    @property
    def ended(self) -> bool:
        """Whether the session's end (its ``terminal`` step) has been read."""
        count = len(self.index)
        return bool(count) and self.index.complete and self.index.stage(count - 1) == "terminal"

    def render_step(self, keep_mode: bool = False) -> None:
        """Draw the current step in every widget (a new step opens folded, at its top)."""
        index, step, lang = self.index, self.step, self.lang
        self.query_one(KeyBar).show(lang, self.autoplay.playing)
        if not len(index):
            waiting = isinstance(index.reader, WaitingReader)
            words = (
                tr("waiting_for", lang, path=index.reader.path) if waiting else tr("no_steps", lang)
            )
            self.query_one(StageView).show(Text(words, style="dim"))
            self.query_one(JourneyStrip).show("session", 0, -1, 0, lang, self.status())
            self._show_notice()
            self._show_findings()
            return
        if not keep_mode and step != self._shown_step:
            self.view_mode = "folded"
        same_step = step == self._shown_step
        self._shown_step = step
        stage = index.stage(step)
        self.query_one(JourneyStrip).show(
            stage, index.turn(step), step, len(index), lang, self.status()
        )
        self.query_one(Timeline).show(step, lang)
        self.query_one(StepBar).show(step, len(index))
        self.query_one(StageView).show(
            self.highlight(self.step_text(step)),
            f"{step + 1} · {stage_name(stage, lang)}{self.mode_label()}",
            keep_offset=same_step and not keep_mode,
        )
        total, lines = context.debug_lines(index, step, keep=64, lang=lang)
        self.query_one(DebugConsole).show_lines(total, lines, lang, self.hit_lighter())
        landed = tuple(self.checkpoints_here(step))
        if self._chapter_key != (stage, lang, landed):
            self._chapter_key = (stage, lang, landed)
            self.query_one("#chapter-step", ChapterPanel).show(
                step_text(
                    self.guide, self.guide_problem, stage, lang, self.scenario, landed=landed
                ),
                f"{tr('chapter', lang)} · {stage_name(stage, lang)}",
                key=self._chapter_key,
            )
        # The section comes from the guide's anchors, the scenario and the stage (sections.py).
        section, _ = section_for_step(self.guide, self.recording, stage, index.turn(step))
        section_key = (getattr(section, "id", None), lang, self.recording.name)
        if section_key != self._section_key:
            self._section_key = section_key
            self.query_one("#chapter-section", ChapterPanel).show(
                section_panel_text(section, lang, self.recording, self.guide is not None),
                key=section_key,
            )
        self._show_notice()
        self._show_findings()
        self.render_tour_bar()

    def _show_notice(self) -> None:
        torn = self.index.reader.torn_line
        text = ""
        if torn is not None and not self.follow:
            text = tr("torn", self.lang, line=torn, steps=len(self.index))
        elif not self.follow and not self.index.reader.complete:
            text = tr("incomplete", self.lang)
        if text == self._notice:
            return
        self._notice = text
        notice = self.query_one("#notice", Static)
        notice.update(text)
        notice.set_class(bool(text), "shown")

    def go(self, step: int) -> None:
        self.cursor.go(step)
        self.render_step()

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
            self.action_unfold()
        else:
            self.go(target)

    def action_step_out(self) -> None:
        self.nesting.update()
        target = self.nesting.leave(self.step)
        if target is not None:
            self.go(target)

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
                self.set_focus(self.query_one(StageView))

        self.push_screen(GotoScreen(self.lang, len(self.index)), chosen)

    def on_timeline_selected(self, message: Timeline.Selected) -> None:
        self.go(message.step)

    def on_step_bar_seek(self, message: StepBar.Seek) -> None:
        self.go(message.step)

    # -- autoplay --------------------------------------------------------------------------

    def action_autoplay(self) -> None:
        if not self.autoplay.playing and self.cursor.at_end and not self.follow:
            self.cursor.go(0)  # at the end, play again from the start
        self.autoplay.toggle()
        self.render_step()

    def _autoplay_tick(self) -> bool:
        if self.cursor.at_end and not self.follow:
            self.call_after_refresh(self.render_step)  # drop the "autoplay" label
            return False
        self.go(self.step + 1)
        return True

    def action_speed(self, delta: int) -> None:
        self.autoplay.change_speed(delta)
        self.render_step()

    # -- settings --------------------------------------------------------------------------

    def action_language(self) -> None:
        self.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]
        bar = self.query_one(SearchBar)
        bar.set_language(self.lang)
        self.render_step(keep_mode=True)
        bar.show_count(self.step)
        if bar.query_text and bar.has_class("shown"):
            bar.start(bar.query_text)  # the text on screen changed language: search it again

    def action_scroll_stage(self, lines: int) -> None:
        self.query_one(StageView).scroll_lines(lines)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.lang))
