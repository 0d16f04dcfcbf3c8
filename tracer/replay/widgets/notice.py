"""The notice: one line under the journey strip, shown only when the trace is not whole.

A trace whose last line was cut off mid-write (a crash, a full disk) is replayed up to the
last whole event, and this line says which line was torn and how many steps were kept; a trace
with no ``terminal`` event yet says the session did not end. Under ``--follow`` the screen does
not ask: a file still being written is expected to look like that. Bound to the screen's cursor,
language and open trace (attributes down), it asks the trace's reader on every move; it repaints
only when its words change.
"""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static

from tracer.view.i18n import tr
from tracer.view.state import ReplayState


class Notice(Static):
    """ "Line N was torn" or "the session did not end", or nothing (then the row is hidden)."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)

    def __init__(self, *, follow: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.follow = follow
        """``--follow``: the file is still being written, and nothing is said."""
        self._text: str | None = None

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        """What the open trace's reader says now."""
        if self.follow or self.state is None:
            return
        index = self.state.index
        reader = index.reader
        # Whether it ended is known once the reader has found its last line.
        ended = reader.complete if getattr(reader, "scanned_all", True) else True
        self.show(reader.torn_line, ended, len(index), self.lang)

    def show(self, torn_line: int | None, complete: bool, steps: int, lang: str) -> None:
        """What the trace's reader says: ``torn_line`` (or None), whether it is ``complete``."""
        text = ""
        if torn_line is not None:
            text = tr("torn", lang, line=torn_line, steps=steps)
        elif not complete:
            text = tr("incomplete", lang)
        if text == self._text:
            return
        self._text = text
        self.update(text)
        self.set_class(bool(text), "shown")
