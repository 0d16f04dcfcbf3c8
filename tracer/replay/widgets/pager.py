"""A pager: Rich text wrapped to the widget's width (Chinese-aware, :mod:`tracer.view.wrap`),
shown a screenful at a time.

The stage view and the chapter panel change on nearly every step. As scroll containers around a
``Static`` each change would re-run Textual's layout (the content's height changed) and draw the
whole screen twice; a pager keeps its size, so a step repaints only what changed. It scrolls by
itself: the mouse wheel, or, once focused (Tab), ↑ ↓ PgUp PgDn Home End and their vim keys. The
keys it does not take (← → [ ] 1–4 …) go on to the replay screen, so steps move from any panel.
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tracer.text.printable import printable, printable_text
from tracer.view.wrap import wrap


def text_strip(line: Text, width: int, base: Style, console: Console) -> Strip:
    """One line of Rich text as a Textual strip of exactly ``width`` cells, on ``base``.

    Every line-API widget (the journey strip, the timeline, the key bar) draws through here, so
    trace text in it (a recording's name, a step's label) is made printable here too.
    """
    line = printable_text(line)
    segments = Segment.apply_style(line.render(console), base)
    return Strip(segments, line.cell_len).crop_extend(0, width, base)


class Pager(Widget):
    """Shows ``text`` from line ``top``; a dim marker says when there is more below."""

    can_focus = True
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("up,k", "scroll(-1)", "up", show=False, id="pager-up"),
        Binding("down,j", "scroll(1)", "down", show=False, id="pager-down"),
        Binding("pageup,ctrl+b", "page(-1)", "page up", show=False, id="pager-page-up"),
        Binding("pagedown,ctrl+f", "page(1)", "page down", show=False, id="pager-page-down"),
        Binding("home", "scroll(-1000000)", "top", show=False, id="pager-top"),
        Binding("end", "scroll(1000000)", "bottom", show=False, id="pager-bottom"),
    ]
    stick_to_end = False
    """When true, a new text opens at its end (a console) rather than its top."""

    def __init__(self, title: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = title
        self.text = Text()
        self.top = 0
        self._at_end = False
        self._base: Style | None = None
        self._key: object = None
        self._strips: dict[tuple[object, int, int], Strip] = {}
        self._wrapped: tuple[int, list[Text]] | None = None
        self._revealed: tuple[re.Pattern[str], int] | None = None
        """The last search hit revealed, and the top before (until the reader scrolls)."""

    def show(
        self, text: Text, title: str | None = None, keep_offset: bool = False, key: object = None
    ) -> None:
        """Show ``text``. With a ``key``, lines drawn for that key before are reused."""
        if title is not None:
            self.border_title = title
        self.text = text
        self._wrapped = None
        self._key = key
        if key is None or len(self._strips) > 4096:
            self._strips.clear()
        if not keep_offset:
            self._revealed = None
            self.top = 0
            self._at_end = self.stick_to_end  # resolved when drawn, once the size is known
        self.refresh()

    def _lines(self, width: int) -> list[Text]:
        if self._wrapped is None or self._wrapped[0] != width:
            lines = wrap(self.text, width) if self.text.plain else []
            self._wrapped = (width, lines)
        return self._wrapped[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """With ``height: auto`` (a dialog's body), as tall as the text wrapped to ``width``."""
        return len(self._lines(max(width, 1)))

    def scroll_lines(self, delta: int) -> None:
        self._revealed = None
        lines = self._lines(max(self.content_size.width, 1))
        most = max(len(lines) - max(self.content_size.height, 1), 0)
        if self._at_end:
            self.top = most
            self._at_end = False
        self.top = max(0, min(self.top + delta, most))
        self.refresh()

    def action_scroll(self, delta: int) -> None:
        self.scroll_lines(delta)

    def action_page(self, pages: int) -> None:
        self.scroll_lines(pages * max(self.content_size.height - 1, 1))

    def reveal(self, pattern: re.Pattern[str]) -> bool:
        """Scroll so that the first line matching ``pattern`` is in view (a search hit).

        The hit is placed for the panel's height, so it is placed again if that changes before
        the reader scrolls (a search that moves the cursor gives a row of the screen back, and
        the layout may catch up after the reveal)."""
        self._revealed = (pattern, self.top)
        return self._reveal(pattern)

    def on_resize(self, event: events.Resize) -> None:
        if self._revealed is not None:
            pattern, self.top = self._revealed
            self._reveal(pattern)
            self.refresh()

    def _reveal(self, pattern: re.Pattern[str]) -> bool:
        lines = self.plain_lines()
        at = next((n for n, line in enumerate(lines) if pattern.search(line)), None)
        if at is None:
            return False
        height = max(self.content_size.height, 1)
        if not self.top <= at < self.top + height - 1:  # the last row may be the "more" marker
            most = max(len(lines) - height, 0)
            self._at_end = False
            self.top = max(0, min(at - height // 3, most))
            self.refresh()
        return True

    def toggle_mark(self, mark: str) -> bool:
        """Scroll to the first line holding ``mark``, or back to the top if already there.

        Returns False when no line holds it."""
        self._revealed = None
        lines = self.plain_lines()
        at = next((n for n, line in enumerate(lines) if mark in line), None)
        if at is None:
            return False
        most = max(len(lines) - max(self.content_size.height, 1), 0)
        target = min(at, most)
        self._at_end = False
        self.top = 0 if self.top == target else target
        self.refresh()
        return True

    def copy_text(self) -> str:
        """What ``y`` copies from here: the text shown (printable, as it is drawn)."""
        return printable(self.text.plain, lines=True)

    def plain_lines(self) -> list[str]:
        """What the pager holds, wrapped as on screen (for copying and tests)."""
        return [line.plain for line in self._lines(max(self.content_size.width, 1))]

    def render_line(self, y: int) -> Strip:
        """One line of the content area (Textual's line API: only visible lines are drawn)."""
        width, height = max(self.content_size.width, 1), max(self.content_size.height, 1)
        if y == 0 or self._base is None:  # the widget's own style, looked up once per frame
            self._base = self.rich_style
        base = self._base
        lines = self._lines(width)
        if self._at_end:
            self.top = max(len(lines) - height, 0)
        more = len(lines) - self.top - height
        if y == 0 and self.top > 0 and self.stick_to_end:
            line = Text(f"… ↑ {self.top + 1}", style="dim italic")
        elif y == height - 1 and more > 0:
            line = Text(f"… ↓ {more + 1}", style="dim italic")
        elif self.top + y < len(lines):
            cache_key = (self._key, width, self.top + y)
            strip = self._strips.get(cache_key) if self._key is not None else None
            if strip is None:
                strip = self._strip(lines[self.top + y], width, base)
                if self._key is not None:
                    self._strips[cache_key] = strip
            return strip
        else:
            return Strip.blank(width, base)
        return self._strip(line, width, base)

    def _strip(self, line: Text, width: int, base: Style) -> Strip:
        return text_strip(line, width, base, self.app.console)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.scroll_lines(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.scroll_lines(-3)
