"""The transport: a clickable progress bar over all steps, and the keys that move along them.

Like asciinema's player, the bar shows where the reader is (``━━━━●─────``, the dot the current
step) and takes the reader elsewhere: a click seeks there (asciinema's seek bar), and so do the
step keys, which are the bar's (:data:`StepBar.SCREEN_KEYS`: ← → and ``h`` ``l``, Home End, ``[``
``]``, 1–4 for the four steps of a result's trip, ``i`` ``u`` into and out of a subagent's loop)
and autoplay's (``a``, ``+`` ``-``). The screen makes them its own (:func:`tracer.replay.keys.
routed`), so they work whichever panel has the focus.

Where each key leads is the replay's pure step logic, :class:`~tracer.view.state.ReplayState`;
the bar is bound to the screen's open trace and cursor (attributes down, ``data_bind``) and
moves its dot when the cursor moves. The bar never moves the
cursor itself: it posts :class:`StepBar.Seek` (messages up), as a click does. A step key's Seek
carries the move, not the step it leads to: a terminal that sends twenty → in one read hands
the screen twenty key events before it has handled the first Seek, so a target reckoned when
the key came would be reckoned twenty times from the same cursor. The screen applies each move
to the cursor the move before it left, in the order the keys came, so no press is lost. Autoplay
(:class:`~tracer.replay.autoplay.Autoplay`) seeks one step on at each tick and stops at the last
step, unless the trace is followed; :class:`StepBar.Changed` says it started, stopped or changed
speed, so the screen redraws the key bar and the status.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.autoplay import Autoplay
from tracer.replay.widgets.pager import text_strip
from tracer.view.state import ReplayState


class StepBar(Widget):
    """``━━━━●─────`` with the current step as the dot; the step keys and autoplay."""

    SCREEN_KEYS = [  # noqa: RUF012 (Textual's own convention)
        Binding("right,l,space", "step(1)", "next", show=False, id="next-step"),
        Binding("left,h", "step(-1)", "previous", show=False, id="previous-step"),
        Binding("home,less_than_sign", "first", "first", show=False, id="first-step"),
        Binding("end,greater_than_sign", "last", "last", show=False, id="last-step"),
        Binding(
            "right_square_bracket,right_black_lenticular_bracket",
            "next_turn",
            "next turn",
            id="next-turn",
        ),
        Binding(
            "left_square_bracket,p,left_black_lenticular_bracket",
            "previous_turn",
            "previous turn",
            id="previous-turn",
        ),
        Binding("1", "station(1)", "mapping", show=False, id="go-to-mapping"),
        Binding("2", "station(2)", "wrapping", show=False, id="go-to-wrapping"),
        Binding("3", "station(3)", "appending", show=False, id="go-to-appending"),
        Binding("4", "station(4)", "resending", show=False, id="go-to-resending"),
        Binding("i", "step_into", "into subagent", show=False, id="into-subagent"),
        Binding("u", "step_out", "out of subagent", show=False, id="out-of-subagent"),
        Binding("a", "autoplay", "autoplay", id="autoplay"),
        Binding(
            "plus,equals_sign,fullwidth_plus_sign", "speed(1)", "faster", show=False, id="faster"
        ),
        Binding("minus,fullwidth_hyphen_minus", "speed(-1)", "slower", show=False, id="slower"),
    ]
    """Keys that work from any panel (the screen passes them on to the bar)."""

    @dataclass
    class Seek(Message):
        """Go to 0-based ``step`` (a click), or where ``move`` leads from the cursor."""

        step: int = 0
        move: Callable[[ReplayState], int | None] | None = None
        """A step key's or an autoplay tick's move, from the cursor as it is when the screen
        takes the message (None from it: stay)."""

        def can_replace(self, message: Message) -> bool:
            # A click waiting behind another click: the later one is where the reader wants to
            # be. A move is never dropped: twenty presses of → go twenty steps.
            return isinstance(message, StepBar.Seek) and self.move is None and message.move is None

        def target(self, state: ReplayState) -> int | None:
            """The step to go to, from the cursor ``state`` has now."""
            return self.step if self.move is None else self.move(state)

    @dataclass
    class Changed(Message):
        """Autoplay started, stopped or changed speed: the key bar and the status say so."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, StepBar.Changed)  # (one redraw says it all)

    step: var[int] = var(0, init=False)
    state: var[ReplayState] = var(None, init=False)  # type: ignore[arg-type]  # set at once
    """The open trace and the cursor (the screen binds a new one for each trace)."""

    def __init__(self, state: ReplayState, *, follow: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(StepBar.state, state)
        self.follow = follow
        self.autoplay = Autoplay(self.set_interval, self._tick)
        self.total = 1

    def watch_step(self) -> None:
        total = len(self.state.index)
        if total:  # (nothing to show yet: the bar stays as it is)
            self.total = max(total, 1)
            self.refresh()

    # -- the keys --------------------------------------------------------------------------

    def _move(self, move: Callable[[ReplayState], int | None]) -> None:
        self.post_message(self.Seek(move=move))

    def action_step(self, delta: int) -> None:
        self._move(lambda state: state.over(delta))

    def action_first(self) -> None:
        self._move(lambda state: 0)

    def action_last(self) -> None:
        self._move(ReplayState.last)

    def action_next_turn(self) -> None:
        self._move(ReplayState.next_turn)

    def action_previous_turn(self) -> None:
        self._move(ReplayState.previous_turn)

    def action_station(self, number: int) -> None:
        self._move(lambda state: state.station(number))

    def action_step_into(self) -> None:
        self._move(ReplayState.into)

    def action_step_out(self) -> None:
        self._move(ReplayState.out)

    def action_autoplay(self) -> None:
        """``a``: play (from the start when at the end), or pause."""
        at_end = self.state.cursor.at_end and not self.follow
        start = 0 if not self.autoplay.playing and at_end else self.state.step
        self.autoplay.toggle()
        self.post_message(self.Seek(start))

    def action_speed(self, delta: int) -> None:
        self.autoplay.change_speed(delta)
        self.post_message(self.Changed())

    def _tick(self) -> bool:
        if self.state.cursor.at_end and not self.follow:
            self.post_message(self.Changed())  # (handled once the timer has stopped)
            return False
        self._move(lambda state: state.step + 1)
        return True

    # -- drawing and clicks ----------------------------------------------------------------

    def _cell(self, width: int) -> int:
        if self.total <= 1:
            return 0
        return round(self.step * (width - 1) / (self.total - 1))

    def render_line(self, y: int) -> Strip:
        width = max(self.size.width, 1)
        cell = self._cell(width)
        out = Text(no_wrap=True)
        out.append("━" * cell, style="#e8d44d")
        out.append("●", style="bold #e8d44d")
        out.append("─" * max(width - cell - 1, 0), style="dim")
        return text_strip(out, width, self.rich_style, self.app.console)

    def on_click(self, event: events.Click) -> None:
        width = max(self.size.width, 1)
        if self.total <= 1 or width <= 1:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        step = round(offset.x * (self.total - 1) / (width - 1))
        self.post_message(self.Seek(max(0, min(step, self.total - 1))))
