"""The frame: the row that holds the timeline, the step view and the chapter panel.

It says when its size changed (:class:`Frame.Resized`, a message up), so the app can work out
again which panels fit (:func:`tracer.replay.layout.plan`) whenever the terminal is resized, not
only at start: going from 140x42 down to 80x24 folds the timeline and the chapter panel away.
(The app's own resize event comes before its new size is known, so the frame is asked instead.)
"""

from __future__ import annotations

from textual.containers import Horizontal
from textual.events import Resize
from textual.geometry import Size
from textual.message import Message


class Frame(Horizontal):
    """A horizontal row that reports its new size."""

    class Resized(Message):
        """The terminal (so the frame) changed size."""

        def __init__(self, size: Size) -> None:
            self.size = size
            super().__init__()

    def on_resize(self, event: Resize) -> None:
        self.post_message(self.Resized(event.size))
