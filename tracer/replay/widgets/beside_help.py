"""The comparison's help (``?`` in ``tracer replay A --beside B``): its keys, in the reader's
language, generated from the comparison's bindings (:func:`tracer.replay.help.help_rows`). Any of
``? F1 escape q`` closes it, as its first line says."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tracer.compare.beside_words import HELP
from tracer.replay.help import HelpRow
from tracer.view.i18n import tr


class BesideHelp(ModalScreen[None]):
    """Every key of the comparison."""

    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding(
            "escape,question_mark,fullwidth_question_mark,f1,q", "dismiss", "close", id="close-help"
        ),
    ]

    def __init__(self, lang: str, rows: list[HelpRow] | None = None) -> None:
        """``rows``: from the bindings (None: every line, as the help writes its keys)."""
        super().__init__()
        self.lang = lang
        self.rows = HELP if rows is None else rows

    def compose(self) -> ComposeResult:
        table = Table(title=tr("help_title", self.lang), show_header=False, box=None)
        table.add_column(style="bold #e8d44d", no_wrap=True)
        table.add_column(overflow="fold")  # Chinese has no spaces to wrap at: fold, never cut
        for keys, words in self.rows:
            table.add_row(keys, words[self.lang])
        with Vertical(id="beside-help-box"):
            yield Static(tr("help_close", self.lang), id="beside-help-close")
            yield Static(table)
