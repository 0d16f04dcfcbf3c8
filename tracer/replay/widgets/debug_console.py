"""The debug console: the chapter's ``[DEBUG]`` lines, printed up to this step.

Like a terminal it shows the newest lines at the bottom (a :class:`Pager` that opens at its end);
the mouse wheel scrolls back. Bound to the screen's cursor, language, open trace and search
(attributes down), it asks for the last few dozen lines and the total count
(:func:`tracer.view.context.debug_lines`), so a step late in a 10,000-turn session costs no more
than an early one.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.reactive import var

from tracer.replay.widgets.pager import Pager
from tracer.view import context
from tracer.view.i18n import tr
from tracer.view.search import Highlight
from tracer.view.state import ReplayState


class DebugConsole(Pager):
    """The last ``[DEBUG]`` lines; ``total`` counts every line printed so far."""

    stick_to_end = True

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)
    highlight: var[Highlight] = var(Highlight(), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self.total = -1
        self._lang = ""
        self._light: Callable[[Text], Text] | None = None

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        state = self.state
        if state is None or not len(state.index):
            return
        lang = self.lang
        total, lines = context.debug_lines(state.index, self.step, keep=64, lang=lang)
        self.show_lines(total, lines, lang, self.highlight.light)

    def show_lines(
        self, total: int, lines: list[str], lang: str, light: Callable[[Text], Text] | None = None
    ) -> None:
        """Show the lines; ``light`` marks search hits (the app's highlighter)."""
        if (total, lang, light) == (self.total, self._lang, self._light) and self.lines == lines:
            return  # nothing new printed: leave the console as it is
        self.total, self.lines, self._lang, self._light = total, lines, lang, light
        out = Text()
        if not lines:
            out.append(tr("no_debug", lang), style="dim")
        else:
            if total > len(lines):
                earlier = total - len(lines)
                key = "earlier_line" if earlier == 1 else "earlier_lines"
                out.append(tr(key, lang, n=earlier) + "\n", style="dim")
            out.append("\n".join(lines))
        self.show(light(out) if light is not None else out, tr("debug", lang))
