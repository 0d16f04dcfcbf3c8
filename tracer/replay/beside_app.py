"""The app of ``tracer replay A --beside B``: the frame around the comparison screen.

Built by :func:`tracer.replay.beside_command.make_beside_app` (the one way to build it, shared by
the command line and the tests) with both traces open and aligned, so bad input has ended as one
line and exit 2 before Textual draws. Like the replay app it drops whatever a terminal would obey
from every line drawn (:class:`~tracer.replay.printable_filter.PrintableFilter`), keeps its style
sheet (``beside.tcss``) and shows one screen, :class:`~tracer.replay.beside_screen.BesideScreen`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widget import AwaitMount

from tracer.compare.beside import Comparison
from tracer.replay import stop_signals
from tracer.replay.beside_screen import BesideScreen
from tracer.replay.input_errors import InputErrorApp
from tracer.replay.printable_filter import PrintableFilter
from tracer.view.steps import StepIndex

if TYPE_CHECKING:
    from textual.filter import LineFilter
    from textual.screen import Screen


class BesideApp(InputErrorApp):
    """Two runs side by side: :attr:`beside` is the screen that steps them."""

    TITLE = "tracer replay --beside"
    CSS_PATH = Path(__file__).with_name("beside.tcss")
    ENABLE_COMMAND_PALETTE = False  # the palette lists the replay's actions, not these

    def __init__(
        self, comparison: Comparison, indexes: tuple[StepIndex, StepIndex], lang: str
    ) -> None:
        super().__init__()
        self.printable_filter = PrintableFilter()
        self.beside = BesideScreen(comparison, indexes, lang)

    def get_line_filters(self) -> list[LineFilter]:
        own = [self.printable_filter] if self.printable_filter.enabled else []
        return [*super().get_line_filters(), *own]

    def get_default_screen(self) -> Screen[Any]:
        return self.beside

    async def on_mount(self) -> None:
        # As the replay app does: the screen is mounted before the app counts as ready, so a key
        # that comes at once (a test's, a screenshot's) finds its columns there.
        await AwaitMount(self.beside, [self.beside])
        if not self.is_headless:  # SIGTERM, SIGHUP and SIGINT close the app as q does
            stop_signals.listen(self.exit)
