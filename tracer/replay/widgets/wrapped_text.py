"""Static text wrapped the Chinese way: the tour's cards and questions.

Rich wraps at spaces and folds a run with none (a Chinese paragraph) wherever the line ends, so
"第2轮" can lose its 轮 to the next line. :class:`WrappedText` wraps with
:func:`tracer.view.wrap.wrap` instead, as the stage view and the chapter panel do: lines break
between ideographs, never before closing punctuation, and a number keeps 第 and its measure word
beside it. Its height is the number of lines that wrapping makes, so the card fits its text.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static

from tracer.view.wrap import wrap


class WrappedText(Static):
    """A :class:`~textual.widgets.Static` whose text :func:`~tracer.view.wrap.wrap` wraps."""

    def __init__(self, text: Text | str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text if isinstance(text, Text) else Text(text)

    def _lines(self, width: int) -> list[Text]:
        lines = wrap(self.text.copy(), max(width, 2))
        while lines and not lines[-1].plain:
            lines.pop()
        return lines

    def render(self) -> Text:
        width = self.content_size.width
        if width <= 0:
            return self.text
        return Text("\n").join(self._lines(width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(len(self._lines(width)), 1)


__all__ = ["WrappedText"]
