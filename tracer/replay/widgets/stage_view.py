"""The step view: what the current step produced and what it changed, folded, unfolded or raw.

The view is bound to the screen's cursor, language, open trace and search (attributes down,
``data_bind``) and draws the step the cursor is on (:meth:`StageView.show_step`); the view
asks the pure layers for its text (:func:`tracer.view.render.render_step`, or
:func:`tracer.view.raw.step_json` in raw mode) and keeps how the reader wants it shown:

- ``o`` (or Enter, through the app) opens every fold of :mod:`tracer.view.fold`, and again
  closes them;
- ``r`` shows the step's raw JSON; ``r`` again goes back to the folded *or unfolded* text the
  reader had, so a raw peek never loses an unfold;
- ``b`` jumps between the raw output and the ``tool_result`` block it became (the ``⇓`` line).

These keys, and ↑ ↓ PgUp PgDn when the focused panel does not take them, are the view's
(:data:`StageView.SCREEN_KEYS`), made the screen's so they work from any panel. A new step opens
folded, at its top. The view says when its mode changed
(:class:`StageView.ModeChanged`, a message up) so the app can redraw what depends on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var

from tracer.replay.widgets.pager import Pager
from tracer.text.printable import printable, printable_json
from tracer.view.fold import unfolded
from tracer.view.i18n import stage_name, tr
from tracer.view.opening import WaitingReader
from tracer.view.raw import step_json
from tracer.view.render import render_step
from tracer.view.search import Highlight
from tracer.view.state import ReplayState
from tracer.view.status import subagent_note
from tracer.view.steps import StepIndex

#: The line of the mapping view between the raw output and the tool_result block.
BLOCK_MARK = "⇓"

#: The view's own keys, which are also the screen's (a list of Bindings, as routing needs).
_OWN_KEYS = [
    Binding("o", "unfold", "unfold", show=False, id="unfold"),
    Binding("r", "raw", "raw JSON", show=False, id="raw"),
    Binding("b", "block", "raw output ⇄ block", show=False, id="block"),
]


class StageView(Pager):
    """What the current step produced and what it changed."""

    BINDINGS = [*_OWN_KEYS]  # noqa: RUF012 (Textual's own convention)
    SCREEN_KEYS = [  # noqa: RUF012
        *_OWN_KEYS,
        Binding("up", "scroll(-1)", "scroll up", show=False, id="scroll-up"),
        Binding("down", "scroll(1)", "scroll down", show=False, id="scroll-down"),
        Binding("pageup", "scroll(-10)", "page up", show=False, id="page-up"),
        Binding("pagedown", "scroll(10)", "page down", show=False, id="page-down"),
    ]
    """Keys that work from any panel (the screen passes them on to the view)."""

    @dataclass
    class ModeChanged(Message):
        """The reader switched between folded, unfolded and raw."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)
    highlight: var[Highlight] = var(Highlight(), init=False)

    def __init__(self, title: str = "", *, id: str | None = None) -> None:
        super().__init__(title, id=id)
        self.index: StepIndex | None = None
        self.shown_step = -1
        """The step drawn (of :attr:`index`)."""
        self.shown_lang = "en"
        self.unfold = False
        self.raw = False
        self.lighter: Callable[[Text], Text] | None = None
        """Lights the current search's hits (set by the app; None: no search)."""
        self.note: Text | None = None

    @property
    def mode(self) -> str:
        """ "raw", "unfolded" or "folded"."""
        return "raw" if self.raw else "unfolded" if self.unfold else "folded"

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        """The cursor's step of the open trace (or why there is none yet)."""
        state, lang = self.state, self.lang
        if state is None:
            return
        index, step = state.index, self.step
        if not len(index):
            waiting = isinstance(index.reader, WaitingReader)
            path = index.reader.path
            words = tr("waiting_for", lang, path=path) if waiting else tr("no_steps", lang)
            self.show(Text(words, style="dim"))
            return
        if not self.has_class("-zoomed"):  # (zoomed, the frame's caption is on the border)
            self.border_subtitle = state.place(step)
        note = subagent_note(state.subagent_at(step), lang)
        self.show_step(index, step, lang, self.highlight.light, note)

    def show_step(
        self,
        index: StepIndex,
        step: int,
        lang: str,
        lighter: Callable[[Text], Text] | None = None,
        note: Text | None = None,
    ) -> None:
        """Show ``step`` of ``index`` (a new step opens folded, at its top); ``note``: a line
        to open it with (a Task step's: ``i`` goes into its subagent's loop)."""
        same = index is self.index and step == self.shown_step
        if not same:
            self.unfold = self.raw = False
        self.index, self.shown_step, self.shown_lang = index, step, lang
        self.lighter = lighter
        self.note = note
        self._draw(keep_offset=same)

    def step_text(self) -> Text:
        """The text for the current step in the current mode."""
        assert self.index is not None
        if self.raw:
            from rich.syntax import Syntax

            code = step_json(self.index, self.shown_step)
            highlighted = Syntax(code, "json", theme="ansi_dark", word_wrap=False).highlight(code)
            highlighted.rstrip()
            return highlighted
        if self.unfold:
            with unfolded():
                text = render_step(self.index, self.shown_step, self.shown_lang)
        else:
            text = render_step(self.index, self.shown_step, self.shown_lang)
        return text if self.note is None else Text.assemble(self.note, text)

    def title_text(self) -> str:
        assert self.index is not None
        lang, step = self.shown_lang, self.shown_step
        mode = "" if self.mode == "folded" else " · " + tr(f"mode_{self.mode}", lang)
        return f"{step + 1} · {stage_name(self.index.stage(step), lang)}{mode}"

    def _draw(self, keep_offset: bool) -> None:
        if self.index is None or not 0 <= self.shown_step < len(self.index):
            return
        text = self.step_text()
        if self.lighter is not None:
            text = self.lighter(text)
        self.show(text, self.title_text(), keep_offset=keep_offset)

    def action_unfold(self) -> None:
        self.unfold = not self.unfold
        self.raw = False
        self._draw(keep_offset=False)
        self.post_message(self.ModeChanged())

    def action_raw(self) -> None:
        self.raw = not self.raw  # the unfold is kept underneath
        self._draw(keep_offset=False)
        self.post_message(self.ModeChanged())

    def show_block(self) -> None:
        """Bring the block a finding is about into view, unless the whole step fits."""
        if len(self.plain_lines()) > self.content_size.height:
            self.toggle_mark(BLOCK_MARK)

    def action_block(self) -> None:
        """On a small screen, jump between the raw output and the block it became."""
        self.toggle_mark(BLOCK_MARK)

    def copy_text(self) -> str:
        """What ``y`` copies from here: the raw JSON itself in raw mode, else the text shown."""
        if self.raw and self.index is not None:
            return printable_json(step_json(self.index, self.shown_step))
        return printable(self.text.plain, lines=True)
