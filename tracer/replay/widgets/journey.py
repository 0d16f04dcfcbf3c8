"""The journey strip: ① 翻译 → ② 包装 → ③ 追加 → ④ 重新发送, the current one lit.

These are the four steps of the chapter's 结果的旅途 (a result's trip back to the model), named
in the book's words in Chinese and by the code's stages in English (mapping, wrapping,
appending, resending). They are not the book's three stations (第一站 to 第三站), which are
sections of the chapter. Step ④ also lights for request 1, the first send, before any result
exists; the stage view says so. The strip is always visible, with "turn T · step S/N" on the
right, so a reader never loses their place (asciinema's progress and Python Tutor's "Step X of
Y"), with the recording's name when there is room. When the line is too narrow, the name goes
first, then the stations shrink to their numbers (``①②③④``), then to the step's name alone; the
status (inside which subagent) goes next, and the position is the one thing never dropped.

The strip is bound to the screen's cursor, language, open trace and activity (attributes down,
:meth:`textual.dom.DOMNode.data_bind`) and redraws itself when the cursor or the language moves.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import var
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.widgets.pager import text_strip
from tracer.trace.events import STATIONS
from tracer.view.i18n import position, stage_name
from tracer.view.state import ReplayState
from tracer.view.status import Activity, status_line

NUMBERS = "①②③④"


class JourneyStrip(Widget):
    """The top line: stations on the left, position and status on the right.

    One widget drawing both halves, so a step repaints a line and never re-runs the layout.
    """

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)
    activity: var[Activity] = var(Activity(), init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stations = Text()
        self.compact = Text()
        """The stations as numbers only, for a narrow screen."""
        self.bare = Text()
        """The step's name alone, for a very narrow screen."""
        self.position = Text()
        self.status = Text()
        self.place = Text()
        """The recording's name."""

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        """The strip for the cursor, with the status: following, indexing, checking, playing,
        inside which subagent's loop."""
        state, lang = self.state, self.lang
        if state is None:
            return
        index, step, doing = state.index, self.step, self.activity
        place = state.place(step) if len(index) else ""  # (before the loop: it reads on)
        status = status_line(
            lang,
            following=doing.following,
            ended=state.ended,
            indexing=doing.indexing,
            checking=doing.checking,
            playing=doing.playing,
            loop=state.loop(),
        )
        if not len(index):
            self.show("session", 0, -1, 0, lang, status)
            return
        self.show(index.stage(step), index.turn(step), step, len(index), lang, status, place)

    def show(
        self,
        stage: str,
        turn: int,
        step: int,
        total: int,
        lang: str,
        status: str = "",
        place: str = "",
    ) -> None:
        line, compact = Text(), Text(" ")
        for number, station in enumerate(STATIONS):
            lit = "bold black on #e8d44d" if station == stage else ""
            if number:
                line.append(" → ", style="dim")
            label = f"{NUMBERS[number]} {stage_name(station, lang)}"
            line.append(f" {label} ", style=lit)
            compact.append(NUMBERS[number], style=lit or "dim")
        if stage not in STATIONS:
            line.append(f"   · {stage_name(stage, lang)}", style="italic")
        compact.append(f" {stage_name(stage, lang)}", style="bold")
        self.compact = compact
        self.bare = Text(f" {stage_name(stage, lang)}", style="bold")
        self.status = Text(status + "  ", style="bold magenta") if status else Text()
        self.place = Text(place + "  ", style="cyan") if place else Text()
        self.position = Text(position(lang, turn, step + 1, total), style="bold")
        self.stations = line
        self.refresh()

    def _choice(self, width: int) -> tuple[Text, Text]:
        """The richest left and right halves that fit ``width`` (two cells between them)."""
        full = Text.assemble(self.place, self.status, self.position)
        no_place = Text.assemble(self.status, self.position)
        tries = [
            (self.stations, full),
            (self.compact, full),
            (self.stations, no_place),
            (self.compact, no_place),
            (self.bare, no_place),
            (self.bare, self.position),
        ]
        for left, right in tries:
            if left.cell_len + 2 + right.cell_len <= width:
                return left, right
        return Text(), self.position

    def render_line(self, y: int) -> Strip:
        width = max(self.size.width, 1)
        left, right = self._choice(width)
        out = left.copy()
        out.append(" " * max(width - left.cell_len - right.cell_len, 2))
        out.append_text(right)
        out = out[max(out.cell_len - width, 0) :] if out.cell_len > width else out
        return text_strip(out, width, self.rich_style, self.app.console)
