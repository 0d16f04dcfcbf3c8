"""The journey strip: ① 翻译 → ② 包装 → ③ 追加 → ④ 重新发送, the current one lit.

These are the four steps of the chapter's 结果的旅途 (a result's trip back to the model), named
in the book's words in Chinese and by the code's stages in English (mapping, wrapping,
appending, resending). They are not the book's three stations (第一站 to 第三站), which are
sections of the chapter. Step ④ also lights for request 1, the first send, before any result
exists; the stage view says so. The strip is always visible, with "turn T · step S/N" on the
right, so a reader never loses their place (asciinema's progress and Python Tutor's "Step X of
Y"). When the line is too narrow for both, the stations shrink to their
numbers (``①②③④``), then go: the position is the one thing the strip never drops.
"""

from __future__ import annotations

from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.i18n import stage_name, tr
from tracer.replay.widgets.pager import text_strip
from tracer.trace.events import STATIONS

NUMBERS = "①②③④"


class JourneyStrip(Widget):
    """The top line: stations on the left, position and status on the right.

    One widget drawing both halves, so a step repaints a line and never re-runs the layout.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stations = Text()
        self.compact = Text()
        """The stations as numbers only, for a narrow screen."""
        self.position = Text()

    def show(
        self, stage: str, turn: int, step: int, total: int, lang: str, status: str = ""
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
        right = Text()
        if status:
            right.append(status + "  ", style="bold magenta")
        right.append(tr("turn_step", lang, turn=turn, step=step + 1, total=total), style="bold")
        self.stations, self.position = line, right
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = max(self.size.width, 1)
        room = width - self.position.cell_len - 1
        left = next((t for t in (self.stations, self.compact) if t.cell_len <= room), Text())
        gap = room - left.cell_len
        out = left.copy()
        out.append(" " * max(gap, 1))
        out.append_text(self.position)
        out = out[max(out.cell_len - width, 0) :] if out.cell_len > width else out
        return text_strip(out, width, self.rich_style, self.app.console)
