"""A clickable progress bar over all steps: click anywhere to jump there (asciinema's seek bar)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.widgets.pager import text_strip


class StepBar(Widget):
    """``━━━━●─────`` with the current step as the dot."""

    class Seek(Message):
        def __init__(self, step: int) -> None:
            self.step = step
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.step = 0
        self.total = 1

    def show(self, step: int, total: int) -> None:
        self.step, self.total = step, max(total, 1)
        self.refresh()

    def _cell(self, width: int) -> int:
        if self.total <= 1:
            return 0
        return round(self.step * (width - 1) / (self.total - 1))

    def render_line(self, y: int) -> Strip:
        width = max(self.size.width, 1)
        cell = self._cell(width)
        out = Text(no_wrap=True)
        out.append("━" * cell, style="#e8d44d")
        out.append("●", style="bold #e8d44d")
        out.append("─" * max(width - cell - 1, 0), style="dim")
        return text_strip(out, width, self.rich_style, self.app.console)

    def on_click(self, event: events.Click) -> None:
        width = max(self.size.width, 1)
        if self.total <= 1 or width <= 1:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        step = round(offset.x * (self.total - 1) / (width - 1))
        self.post_message(self.Seek(max(0, min(step, self.total - 1))))
