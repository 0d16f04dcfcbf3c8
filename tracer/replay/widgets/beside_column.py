"""One run's column in the comparison (``tracer replay A --beside B``): a title and the step.

The title names the run and its step on this row ("A · step 8/14 · faults/03-malformed-result");
it is lit (class ``-lit``, coloured in ``beside.tcss``) when this side differs on the row. The
body is the step as the replay renders it (:mod:`tracer.compare.render_beside`), scrolled by the
screen with the other column so the two stay level. Attributes down: the screen calls
:meth:`show`; the column decides nothing and takes no keys (the screen binds them all, so → steps
both runs whichever column the mouse last touched).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static


class BesideColumn(Vertical):
    """A title line over a scrolling step."""

    def compose(self) -> ComposeResult:
        yield Static(classes="beside-title")
        scroll = VerticalScroll(Static(classes="beside-body"), classes="beside-scroll")
        scroll.can_focus = False  # the screen's keys step and scroll both columns
        yield scroll

    def show(self, title: str, body: Text, *, lit: bool) -> None:
        """Draw a new row: its title (lit when this side differs) and its step, from the top."""
        line = Text(title, no_wrap=True, overflow="ellipsis")  # one line: the bodies stay level
        self.query_one(".beside-title", Static).update(line)
        self.set_class(lit, "-lit")
        self.query_one(".beside-body", Static).update(body)
        self.query_one(".beside-scroll", VerticalScroll).scroll_home(animate=False)

    def scroll_lines(self, lines: int) -> None:
        self.query_one(".beside-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def scroll_page(self, pages: int) -> None:
        scroll = self.query_one(".beside-scroll", VerticalScroll)
        height = max(scroll.scrollable_content_region.height - 1, 1)
        scroll.scroll_relative(y=pages * height, animate=False)
