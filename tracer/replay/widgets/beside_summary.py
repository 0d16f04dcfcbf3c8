"""The summary a comparison opens on: how the two runs differ, by row, and A's doctor findings.

The words are :func:`tracer.compare.beside.summary_text`'s; this panel shows them over the whole
body of the screen (the columns hidden) until a step key starts the comparison, and again on
``s``. It scrolls on the screen's ↑ ↓ PgUp PgDn (the screen passes them here while it is open);
it takes no focus, so every key stays the screen's.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class BesideSummary(VerticalScroll, can_focus=False):
    """The comparison's summary, scrolled as a whole."""

    def compose(self) -> ComposeResult:
        yield Static(id="beside-summary-text")

    def show(self, text: Text) -> None:
        self.query_one("#beside-summary-text", Static).update(text)

    def scroll_lines(self, lines: int) -> None:
        self.scroll_relative(y=lines, animate=False)

    def scroll_page(self, pages: int) -> None:
        height = max(self.scrollable_content_region.height - 1, 1)
        self.scroll_relative(y=pages * height, animate=False)
