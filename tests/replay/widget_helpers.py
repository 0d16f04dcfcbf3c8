"""What the widget tests share: an App that mounts one widget (or screen) and keeps its messages.

Each replay widget is tested on its own: :class:`Harness` mounts only that widget, :func:`run`
lets Pilot press its keys, and the test reads the widget's state and the messages it posted
(:func:`heard`). None of this needs the replay app, which is the point of widgets that own their
keys. :class:`ScreenHarness` and :func:`run_screen` do the same for a screen pushed over an empty
app, with the replay's stylesheet, and keep what the screen was dismissed with.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from replay_helpers import MAIN_TRACE
from textual.app import App, ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex


class Harness(App[None]):
    """Mounts one widget and keeps every message that reaches the app."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.heard: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_mount(self) -> None:
        self.widget.focus()

    def _on_message(self, message: Message) -> None:
        self.heard.append(message)
        return super()._on_message(message)  # type: ignore[func-returns-value]


def run(
    widget: Widget, script: Callable[[Any, Harness], Awaitable[None]], size=(80, 24)
) -> Harness:
    app = Harness(widget)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot, app)

    asyncio.run(main())
    return app


def heard(app: Harness, kind: type[Message]) -> list[Any]:
    return [m for m in app.heard if isinstance(m, kind)]


def main_index() -> StepIndex:
    return StepIndex(TraceReader(MAIN_TRACE))


class ScreenHarness(App[None]):
    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__(css_path=Path(__file__).parents[2] / "tracer/replay/replay.tcss")
        self.first = screen
        self.result: Any = "not dismissed"

    def on_mount(self) -> None:
        self.push_screen(self.first, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


def run_screen(screen: Screen[Any], keys: list[str], size=(80, 24)) -> ScreenHarness:
    app = ScreenHarness(screen)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()

    asyncio.run(main())
    return app
