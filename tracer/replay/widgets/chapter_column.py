"""The chapter column on the right: what this kind of step is in the book, and the section.

Two :class:`~tracer.replay.widgets.chapter_panel.ChapterPanel` stack here. The top one says what
the step's stage is in the chapter's terms (:func:`tracer.view.section_text.step_text`) and names
the checkpoints that land on this very step (:func:`tracer.tour.landings.checkpoint_landings`,
worked out once per recording); the bottom one shows the chapter's section for the step
(:func:`tracer.view.sections.section_for_step`, :func:`tracer.view.chapter_panel.
section_panel_text`). The column is bound to the screen's cursor, language, open trace and
search (attributes down, ``data_bind``) and draws the cursor's step
(:meth:`ChapterColumn.show_step`); it redraws a panel only when what it shows changed, and lights
the current search's hits in both, so the chapter is searched too.

The column also keeps the chapter's table of contents (:meth:`ChapterColumn.contents`: every
section and the recordings' steps that show it), worked out the first time it is asked for, since
that reads every bundled recording. ``s`` (the column's key, made the screen's so it works from
any panel) lists it, the current section marked; Enter on a recording posts
:class:`ChapterColumn.Open` and the screen opens it there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var

from tracer.replay.widgets.chapter_panel import ChapterPanel
from tracer.tour.landings import checkpoint_landings
from tracer.view.chapter_panel import section_panel_text
from tracer.view.i18n import stage_name, tr
from tracer.view.search import Highlight
from tracer.view.section_text import step_text
from tracer.view.sections import Contents, RecordingInfo, section_for_step
from tracer.view.state import ReplayState
from tracer.view.steps import StepIndex

if TYPE_CHECKING:
    from tracer.chapter.guide_records import Guide


class ChapterColumn(Vertical):
    """The step's chapter text over the section's; the guide comes down once, at start."""

    SCREEN_KEYS = [Binding("s", "contents", "contents", id="contents")]  # noqa: RUF012
    """Keys that work from any panel (the screen passes them on to the column)."""

    @dataclass
    class Open(Message):
        """The reader chose a recording in the contents: open it at 0-based ``step``."""

        path: Path
        step: int

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)
    highlight: var[Highlight] = var(Highlight(), init=False)

    def __init__(
        self,
        guide: Guide | None,
        guide_problem: str | None,
        contents: Contents | None = None,
        *,
        lang: str = "en",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.guide, self.guide_problem = guide, guide_problem
        self._contents = contents
        self.set_reactive(ChapterColumn.lang, lang)
        self.section_id: str | None = None
        """The id of the section shown (None: none covers the step)."""
        self._landings: tuple[object, dict[int, list[str]]] | None = None
        self._step_key: object = None
        self._section_key: object = None

    def compose(self) -> ComposeResult:
        yield ChapterPanel(tr("chapter", "en"), id="chapter-step")
        yield ChapterPanel(id="chapter-section")

    def contents(self) -> Contents | None:
        """The chapter's table of contents (None without a guide)."""
        if self.guide is None:
            return None
        if self._contents is None:
            from tracer.view.sections import bundled_contents

            self._contents = bundled_contents(self.guide)
        return self._contents

    def action_contents(self) -> None:
        """``s``: the chapter's sections and the steps that show them; Enter opens one."""
        from tracer.replay.widgets.toc_screen import TocScreen

        def chosen(target: tuple[Path, int] | None) -> None:
            if target is not None:
                self.post_message(self.Open(*target))

        contents = self.contents()
        if contents is not None:
            self.app.push_screen(TocScreen(contents, self.lang, self.section_id), chosen)

    def watch_state(self, old: ReplayState | None, new: ReplayState | None) -> None:
        if new is not None and old is not None and new is not old:
            self.forget()

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        state = self.state
        if state is None or not len(state.index):
            return
        light = self.highlight.light
        query = self.highlight.query if light is not None else ""
        self.show_step(
            state.index, self.step, self.lang, state.recording, state.scenario, light, query
        )

    def forget(self) -> None:
        """Another trace was opened: draw both panels afresh."""
        self._landings = self._step_key = self._section_key = self.section_id = None

    def checkpoints_here(self, index: StepIndex, recording: RecordingInfo, step: int) -> list[str]:
        """Ids of the checkpoints whose step is ``step`` in this recording."""
        if self.guide is None or not index.complete:
            return []
        if self._landings is None or self._landings[0] is not index:
            self._landings = (index, checkpoint_landings(self.guide, recording, index))
        return self._landings[1].get(step, [])

    def show_step(
        self,
        index: StepIndex,
        step: int,
        lang: str,
        recording: RecordingInfo,
        scenario: str | None,
        lighter: Callable[[Text], Text] | None = None,
        query: str = "",
    ) -> None:
        stage = index.stage(step)
        landed = tuple(self.checkpoints_here(index, recording, step))
        step_key = (stage, lang, landed, query, scenario)
        if step_key != self._step_key:
            self._step_key = step_key
            text = step_text(self.guide, self.guide_problem, stage, lang, scenario, landed=landed)
            self.query_one("#chapter-step", ChapterPanel).show(
                lighter(text) if lighter else text,
                f"{tr('chapter', lang)} · {stage_name(stage, lang)}",
                key=step_key,
            )
        # The section comes from the guide's anchors, the scenario and the stage (sections.py).
        section, _ = section_for_step(self.guide, recording, stage, index.turn(step))
        self.section_id = getattr(section, "id", None)
        section_key = (getattr(section, "id", None), lang, recording.name, query)
        if section_key != self._section_key:
            self._section_key = section_key
            text = section_panel_text(section, lang, recording, self.guide is not None)
            self.query_one("#chapter-section", ChapterPanel).show(
                lighter(text) if lighter else text, key=section_key
            )
