"""The orientation: the first screen's words, under the journey strip, until the reader moves.

It says what ①–④ and 1–4 are, that ``?`` lists every key, and (off the tour) that ``s`` opens
the contents and ``tracer tour`` walks the chapter: on one line where it fits, else on two (80
columns). Once the cursor has left the step the replay opened at, the reader has found the keys,
and the row is given back to the panels. Bound to the screen's cursor and language (attributes
down), it redraws itself when either changes.
"""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static

from tracer.text.cells import cells
from tracer.view.i18n import tr
from tracer.view.state import ReplayState


class Orientation(Static):
    """One or two lines of first words; hidden for good once the reader has moved."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)

    def __init__(self, *, lang: str, on_tour: bool, id: str | None = None) -> None:
        super().__init__(words(lang, on_tour=on_tour, width=0), id=id)
        self.on_tour = on_tour
        """On the tour, whose bar is the row under this one, the second half is left out."""

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        state = self.state
        if state is None or not len(state.index) or not self.display:
            return
        if self.step != state.start:
            self.display = False  # the reader has found the keys: give the row back
        elif str(self.content) != (said := words(self.lang, self.on_tour, self.app.size.width)):
            # Only when its words changed: an update lays the screen out again, and every
            # panel is drawn anew (most of a step's time, on every step).
            self.update(said)


def words(lang: str, on_tour: bool, width: int) -> str:
    """The words for ``lang``, on one line if ``width`` (0: not known yet) has room for it."""
    first = tr("orient", lang)
    if on_tour:  # on the tour already, and its bar is the row under this one
        return first
    more = tr("orient_more", lang)
    one_line = f"{first} · {more}"
    return one_line if width and cells(one_line) + 2 <= width else f"{first}\n{more}"
