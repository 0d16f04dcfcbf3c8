"""The notice: one line under the journey strip, shown only when the trace is not whole.

A trace whose last line was cut off mid-write (a crash, a full disk) is replayed up to the
last whole event, and this line says which line was torn and how many steps were kept; a trace
with no ``terminal`` event yet says the session did not end. Under ``--follow`` the screen does
not ask: a file still being written is expected to look like that. The screen tells it what the
reader says (attributes down); it repaints only when its words change.
"""

from __future__ import annotations

from textual.widgets import Static

from tracer.view.i18n import tr


class Notice(Static):
    """ "Line N was torn" or "the session did not end", or nothing (then the row is hidden)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text: str | None = None

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
