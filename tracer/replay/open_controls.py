"""Opening traces: the picker, the command palette, and ``--follow``'s polling.

:class:`OpenControls` is mixed into :class:`~tracer.replay.app.ReplayApp`. The picker (``O``)
and the palette's "open a recording" list :func:`tracer.replay.opening.choices`; the chosen trace
replaces the current one in place (:meth:`OpenControls.open_trace`): a new reader and index, the
cursor at the first step, the doctor run again. ``--follow`` polls the file (:meth:`poll`); a file
that did not exist yet is opened the same way once its header line is written, as ``tail -F``
picks up a file that appears.

The palette (ctrl+p) lists the app's own actions in the current language
(:data:`tracer.replay.i18n.PALETTE`) in place of Textual's English defaults, with its
placeholder in that language too; so does the toast Textual shows when ctrl+c is pressed
(``action_help_quit``), which names the key that really quits.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.app import SystemCommand
from textual.command import CommandPalette
from textual.screen import Screen

from tracer.replay.i18n import PALETTE, tr
from tracer.replay.opening import WaitingReader, choices
from tracer.replay.steps import Cursor, StepIndex
from tracer.replay.widgets.picker import PickerScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.timeline import Timeline


class OpenControls:
    """``O``, ctrl+p, and the ``--follow`` poll."""

    # State set by ReplayApp.__init__; the App methods used below (query_one, notify, workers,
    # render_step, start_doctor, finish_index, …) come from ReplayApp as well.
    index: StepIndex
    cursor: Cursor
    lang: str
    indexing: bool

    def action_open_picker(self) -> None:
        app: Any = self

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.open_trace(path)

        current = getattr(self.index.reader, "path", None)
        app.push_screen(PickerScreen(self.lang, choices(), current), chosen)

    def open_trace(self, path: Path) -> None:
        """Replay ``path`` in place of the current trace (the picker, or a followed file that
        has just appeared)."""
        from tracer.errors import UserError
        from tracer.paths import short_name
        from tracer.trace.reader import TraceReader

        try:
            reader = TraceReader(path)
        except UserError as exc:
            self.notify(str(exc), severity="error")
            return
        self.workers.cancel_group(self, "index")
        self.workers.cancel_group(self, "search")
        self.index = StepIndex(reader, eager=False)
        self.cursor = Cursor(self.index, 0)
        source = reader.header.get("source") or {}
        self.scenario = source.get("name") if isinstance(source, dict) else None
        timeline = self.query_one(Timeline)
        timeline.index = self.index
        timeline.set_filter(None)
        timeline.set_marks({})
        self.query_one(SearchBar).reset(self.index)
        self.filtering, self.diagnosis, self.doctor_state = False, None, ""
        # Forget what was drawn for the old trace, so every panel redraws.
        self._chapter_key = self._section_key = self._shown_step = self._notice = None
        self._start_step = 0
        self.start_doctor()
        self.indexing = not self.index.complete
        if self.indexing:
            self.finish_index()
        self.render_step()
        self.notify(tr("opened", self.lang, name=short_name(path)), timeout=2)

    def action_command_palette(self) -> None:
        """Textual's palette, its placeholder in the reader's language."""
        app: Any = self
        if app.use_command_palette and not CommandPalette.is_open(app):
            placeholder = tr("palette_placeholder", self.lang)
            app.push_screen(CommandPalette(placeholder=placeholder, id="--command-palette"))

    def action_help_quit(self) -> None:
        """ctrl+c does not quit: say which key does, in the reader's language."""
        app: Any = self
        for key, active in app.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                app.notify(tr("quit_hint", self.lang, keys=key), title=tr("quit_title", self.lang))
                return

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The command palette (ctrl+p): the app's own actions, in the current language."""
        for action, words in PALETTE:
            text = words.get(self.lang) or words["en"]
            yield SystemCommand(text, "", lambda a=action: self.run_action(a))

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
        if not self.indexing and self.cursor.refresh():
            self.render_step()
            self._recheck_when_finished()
