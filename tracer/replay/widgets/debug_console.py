"""The debug console: the chapter's ``[DEBUG]`` lines, printed up to this step.

Like a terminal it shows the newest lines at the bottom (a :class:`Pager` that opens at its end);
the mouse wheel scrolls back. The app hands it the last few dozen lines and the total count, so
a step late in a 10,000-turn session costs no more than an early one.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from tracer.replay.widgets.pager import Pager
from tracer.view.i18n import tr


class DebugConsole(Pager):
    """The last ``[DEBUG]`` lines; ``total`` counts every line printed so far."""

    stick_to_end = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self.total = -1
        self._lang = ""
        self._light: Callable[[Text], Text] | None = None

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
