"""The panels are bound to the screen's cursor and language, so a new panel needs no other code.

A panel here is only a widget with ``step`` and ``lang`` reactives and watchers that redraw it,
bound in ``compose`` (Textual's ``data_bind``): the test adds one that no code of the replay knows
about, in a subclass's ``compose`` and nowhere else, and it follows every move, every redraw of the
same step and every change of language, as the real panels do.
"""

from __future__ import annotations

from typing import Any

from replay_helpers import drive, make_app
from textual.app import ComposeResult
from textual.reactive import var
from textual.widgets import Static

from tracer.replay.screen import ReplayScreen


class Echo(Static):
    """A panel that says the step and language it was last drawn for, and counts its draws."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)

    def __init__(self) -> None:
        super().__init__(id="echo")
        self.draws = 0

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        self.draws += 1
        self.update(f"{self.lang} {self.step + 1}")


class EchoScreen(ReplayScreen):
    """The replay screen with one more panel, added in compose only."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Echo().data_bind(ReplayScreen.step, ReplayScreen.lang)


def test_a_panel_bound_in_compose_follows_the_cursor_and_the_language() -> None:
    app = make_app(step=3, lang="en")
    app.replay = EchoScreen(app.replay.state, app.replay.options)

    async def script(pilot: Any) -> None:
        echo = app.query_one(Echo)
        assert str(echo.content) == "en 4"  # bound at start: it shows where the replay opened
        await pilot.press("right", "right")
        assert str(echo.content) == "en 6" and app.replay.step == 5
        await pilot.press("t")  # the language, bound too
        assert str(echo.content) == "zh 6"
        await pilot.press("left")
        assert str(echo.content) == "zh 5"
        before = echo.draws
        app.replay.redraw()  # the same step again (the trace grew, a search ended…)
        await pilot.pause()
        assert echo.draws == before + 1 and str(echo.content) == "zh 5"

    drive(app, script)
