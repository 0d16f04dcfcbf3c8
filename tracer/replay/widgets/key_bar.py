"""The key bar: the keys worth knowing, fitted to the width (lazygit's bottom line).

``?`` (the bar's key, made the screen's so it works from any panel) opens the help: every key.
At 80 columns the full list does not fit. Rather than let the terminal cut the end off (where
help and quit are), :func:`fit_keys` first shortens every label, then drops the least useful keys,
and always keeps ``?`` and ``q``: a reader who sees those two can find the rest. Bound to the
screen's language and activity (``a`` says "pause" while autoplay plays), it redraws itself.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.reactive import var
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.widgets.pager import text_strip
from tracer.view.i18n_keys import KEY_HINTS, KEY_PAUSE
from tracer.view.status import Activity

#: The last keys of the list are never dropped (help, quit).
KEEP = 2
GAP = "  "


def fit_keys(hints: list[tuple[str, str, str]], width: int) -> list[tuple[str, str]]:
    """``(key, label)`` pairs that fit in ``width`` cells: long labels, else short ones (the
    least useful keys' first), else fewer keys (the least useful dropped first)."""

    def size(pairs: list[tuple[str, str]]) -> int:
        return sum(cell_len(f"{k} {v}") for k, v in pairs) + cell_len(GAP) * len(pairs) + 1

    for long_ones in range(len(hints), -1, -1):
        pairs = [(h[0], h[1] if n < long_ones else h[2]) for n, h in enumerate(hints)]
        if size(pairs) <= width:
            return pairs
    keep = [(h[0], h[2]) for h in hints[-KEEP:]]
    optional = [(h[0], h[2]) for h in hints[:-KEEP]]
    while optional and size(optional + keep) > width:
        optional.pop()
    return optional + keep


class KeyBar(Widget):
    """One line of ``key label`` pairs in the current language."""

    SCREEN_KEYS = [  # noqa: RUF012 (Textual's own convention)
        Binding("question_mark,fullwidth_question_mark,f1", "help", "help", id="help"),
    ]
    """Keys that work from any panel (the screen passes them on to the bar)."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    activity: var[Activity] = var(Activity(), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.playing = False
        self._drawn = ("en", False)
        self.question: str | None = None
        """Words shown in place of the keys until the next key (ctrl+c's "quit?")."""

    def say(self, words: str | None) -> None:
        self.question = words
        self.refresh()

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        """Repaint when the language changed, or autoplay started or stopped."""
        self.playing = self.activity.playing is not None
        if (self.lang, self.playing) != self._drawn:
            self._drawn = (self.lang, self.playing)
            self.refresh()

    def action_help(self) -> None:
        """``?``: every key, generated from the bindings of the screen and its panels (each
        found by its ``id``), as a keymap may have moved them."""
        from tracer.replay.help import bound_here, help_rows, key_display, keymap_of
        from tracer.replay.widgets.screens import HelpScreen
        from tracer.view.i18n_keys import HELP, HELP_LINES, TEXTUAL_LINES

        bound, keymap = bound_here(self.screen), keymap_of(self.app)
        display = key_display(self.app)
        rows = help_rows(bound, keymap, display, HELP, HELP_LINES, TEXTUAL_LINES)
        self.app.push_screen(HelpScreen(self.lang, rows))

    def hints(self) -> list[tuple[str, str, str]]:
        out = []
        for keys, words, short in KEY_HINTS:
            if keys == "a" and self.playing:
                words = short = KEY_PAUSE
            out.append((keys, words[self.lang], short[self.lang]))
        return out

    def render_line(self, y: int) -> Strip:
        width = max(self.size.width, 1)
        line = Text(" ")
        if self.question is not None:
            line.append(self.question, style="bold #e8d44d")
            line.truncate(width)
            return text_strip(line, width, self.rich_style, self.app.console)
        for n, (key, label) in enumerate(fit_keys(self.hints(), width)):
            if n:
                line.append(GAP)
            line.append(key, style="bold")
            line.append(" " + label)
        line.truncate(width)
        return text_strip(line, width, self.rich_style, self.app.console)
