"""Modal screens: help (``?``, which says how to close it), go to step (``g``, which says its
keys, and when the step does not exist rather than silently going to the nearest one).

The help is generated from the bindings, as posting's is: the key bar (which owns ``?``) hands
it the rows :func:`tracer.replay.help.help_rows` makes from the bindings of the replay screen and
its panels, each line found by the binding's ``id``; a line whose keys a keymap moved
(``App.set_keymap``, by binding id) says the keys as they are now.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tracer.replay.help import HelpRow
from tracer.view.i18n import tr
from tracer.view.i18n_keys import HELP
from tracer.view.wrap import Wrapped


class HelpScreen(ModalScreen[None]):
    """Every key, in the current language. Any of ``? F1 escape q`` closes it, as its first line
    says; on a short screen the list scrolls (↑ ↓ PgUp PgDn, ``j`` ``k``) under that line."""

    AUTO_FOCUS = "#help-body"
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding(
            "escape,question_mark,fullwidth_question_mark,f1,q", "dismiss", "close", id="close-help"
        ),
        Binding("j", "scroll(1)", "down", show=False, id="help-down"),
        Binding("k", "scroll(-1)", "up", show=False, id="help-up"),
    ]

    def __init__(self, lang: str, rows: list[HelpRow] | None = None) -> None:
        """``rows``: from :func:`~tracer.replay.help.help_rows` (None: every line of the help,
        as it writes the keys)."""
        super().__init__()
        self.lang = lang
        self.rows = HELP if rows is None else rows

    def compose(self) -> ComposeResult:
        table = Table(
            title=tr("help_title", self.lang),
            show_header=False,
            box=None,
            caption=tr("help_close", self.lang),
            caption_style="italic #e8d44d",
        )
        table.add_column(style="bold #e8d44d", no_wrap=True)
        table.add_column(overflow="fold")  # Chinese has no spaces to wrap at: fold, never cut
        for keys, words in self.rows:  # wrapped the Chinese way: never a lone "显示 /" line
            table.add_row(keys, Wrapped(Text(words[self.lang])))
        with Vertical(id="help-box"):
            yield Static(tr("help_close", self.lang), id="help-close")  # pinned above the keys
            with VerticalScroll(id="help-body"):
                yield Static(table)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-body", VerticalScroll).scroll_relative(y=lines, animate=False)


class GotoScreen(ModalScreen[int | None]):
    """Ask for a step number (1-based); dismiss with the 0-based step, or None."""

    AUTO_FOCUS = "Input"
    BINDINGS = [Binding("escape", "cancel", "cancel", id="cancel-go-to")]  # noqa: RUF012

    def __init__(self, lang: str, total: int) -> None:
        super().__init__()
        self.lang, self.total = lang, total

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box"):
            yield Static(tr("goto_prompt", self.lang, total=self.total))
            yield Input(id="goto-input", type="integer")
            yield Static(id="goto-error")
            yield Static(tr("goto_hint", self.lang), id="goto-hint")  # its keys, as every box

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            value = int(event.value)
        except ValueError:
            self.dismiss(None)
            return
        if not 1 <= value <= self.total:  # say so, and let the reader try again
            self.query_one("#goto-error", Static).update(
                tr("goto_out_of_range", self.lang, value=value, total=self.total)
            )
            self.query_one(Input).value = ""
            return
        self.dismiss(value - 1)

    def action_cancel(self) -> None:
        self.dismiss(None)
