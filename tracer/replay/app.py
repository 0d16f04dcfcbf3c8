"""The replay app: the start-up state, the style sheet, the palette, and the replay screen.

Textual's rule, "attributes down, messages up", shapes the replay. The app itself is only the
frame around it: it is built (by :func:`tracer.replay.factory.make_app`, the one way to build
it, as the command line and the tests do) with everything the replay starts from, keeps the
style sheet (``replay.tcss``) and the command palette (ctrl+p: the replay's actions and every
recording by name), and shows one screen, :class:`~tracer.replay.screen.ReplayScreen`. The
screen holds the cursor and the trace and binds every key; each panel is a widget under
``widgets/`` with its own keys and state, posting messages up to it.

The whole app mirrors no single Claude Code file: it replays what ``query.ts``'s loop
(``queryLoop``) recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import SystemCommand
from textual.widget import AwaitMount

from tracer.replay import palette, stop_signals
from tracer.replay.input_errors import InputErrorApp
from tracer.replay.printable_filter import PrintableFilter
from tracer.replay.screen import ReplayScreen
from tracer.view.i18n import tr

if TYPE_CHECKING:
    from textual.filter import LineFilter
    from textual.screen import Screen

    from tracer.replay.options import ReplayOptions
    from tracer.view.state import ReplayState


QUIT_ACTIONS = ("quit", "app.quit")


class ReplayApp(InputErrorApp):
    """Step through a trace: :attr:`replay` is the screen that does it."""

    TITLE = "tracer replay"
    CSS_PATH = Path(__file__).with_name("replay.tcss")  # absolute, so subclasses find it too
    COMMANDS: ClassVar[set[Any]] = {palette.ReplayCommands}  # "no matches" in the reader's words

    def __init__(self, state: ReplayState, options: ReplayOptions) -> None:
        """``state``: the open trace at its first step; ``options``: the rest of the start-up
        state (:mod:`tracer.replay.options`), handed on to the screen."""
        super().__init__()
        self.printable_filter = PrintableFilter()
        """Drops what a terminal would obey from every line drawn (:mod:`printable_filter`)."""
        self.replay = ReplayScreen(state, options)
        """The replay: the cursor (``replay.step``), the trace and the panels."""
        self._quit_asked = False
        """ctrl+c was pressed once: a second one quits."""

    def get_line_filters(self) -> list[LineFilter]:
        # The last wall: whatever a trace string holds that a terminal would obey is dropped
        # from every line before it is written, however the string got onto the screen.
        own = [self.printable_filter] if self.printable_filter.enabled else []
        return [*super().get_line_filters(), *own]

    def get_default_screen(self) -> Screen[Any]:
        return self.replay

    async def on_mount(self) -> None:
        # The replay is mounted before the app counts as ready, so a key or a resize that comes
        # at once (a test's, a screenshot's) finds its panels there. Textual hands back an
        # AwaitMount for a screen it pushes or switches to, but for the default screen only one
        # that does not wait, and a screen has no public "mounted" event: so the app builds that
        # public awaitable (textual.widget.AwaitMount) for its default screen itself. (A mode's
        # base screen would be waited for, but Textual only takes the app's query root after that
        # wait, once the replay has opened the tour's first card: app.query_one would search it.)
        await AwaitMount(self.replay, [self.replay])
        if not self.is_headless:  # SIGTERM, SIGHUP and SIGINT close the app as q does
            stop_signals.listen(self.exit)

    @property
    def lang(self) -> str:
        """The reader's language (``t`` switches it, on the screen)."""
        return self.replay.lang

    def action_command_palette(self) -> None:
        """Textual's palette (ctrl+p), its placeholder in the reader's language."""
        from textual.command import CommandPalette

        # Textual types is_open's app as App[object]; App is invariant in its result (ours: None).
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            placeholder = tr("palette_placeholder", self.lang)
            self.push_screen(CommandPalette(placeholder=placeholder, id="--command-palette"))

    def action_help_quit(self) -> None:
        """ctrl+c: the first asks (in the key bar, in the reader's language), the second quits.

        The question goes in the key bar, one widget as wide as the screen, and not in a toast:
        Textual cuts an overlay's line where the panels under it meet, and a Chinese character
        that straddles such a cut is lost (要退出吗 came out 要  出吗)."""
        if self._quit_asked:
            self.exit()
            return
        keys = next(
            (k for k, a in self.active_bindings.items() if a.binding.action in QUIT_ACTIONS), "q"
        )
        self._quit_asked = True
        words = tr("quit_again", self.lang, keys=keys)
        if not self.replay.ask_in_key_bar(words):  # (a dialog or a zoom hides the key bar)
            self.notify(words)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.key != "ctrl+c" and self._quit_asked:
            self._quit_asked = False  # another key: the question is over
            self.replay.ask_in_key_bar(None)
        await super().on_event(event)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette (ctrl+p): the replay's actions and every recording, by name."""
        return palette.commands(self.lang, self.replay.run_action, self.replay.loader.choose)
