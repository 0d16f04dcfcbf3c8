"""The replay screen's own keys: what Enter, Escape, ``n``, ``f``, ``g``, ``y``, ``t`` and the
tour's keys do, the ``to`` action that hands a widget's key on to the widget, and the key bar
that lists them (a question asked there in their place).

Every key of the replay is bound on its screen (:data:`tracer.replay.keys.KEYS`), so it works
whichever panel has the focus and not under a dialog. Most belong to one widget and only pass
through here (:meth:`ScreenKeys.action_to`); the ones that change what several panels show
(:data:`tracer.replay.keys.OWN`) are the screen's, and their actions are this class, which
:class:`~tracer.replay.screen.ReplayScreen` is built on: each moves the cursor
(:meth:`~tracer.replay.screen.ReplayScreen.go`) or sets a reactive the panels are bound to, and
the panels redraw themselves. It mirrors no Claude Code file: Enter and Escape walk into and out
of a subagent's loop, recorded under the ``Task`` call that ran it.
"""

from __future__ import annotations

from textual.screen import Screen

from tracer.replay.keys import KEYS
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.screens import GotoScreen
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline
from tracer.replay.widgets.tour_bar import TourBar
from tracer.view.i18n import LANGS, tr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tracer.view.state import ReplayState
    from tracer.view.steps import StepIndex


class ScreenKeys(Screen[None]):
    """The replay screen's bindings and its own keys' actions (the rest of the screen is
    :class:`~tracer.replay.screen.ReplayScreen`, which provides what these read and move)."""

    BINDINGS = [*KEYS]  # noqa: RUF012 (Textual's convention; its type: a list of any binding form)

    if TYPE_CHECKING:  # (the replay screen's: its reactives, and how it moves the cursor)
        state: ReplayState
        lang: str

        @property
        def index(self) -> StepIndex: ...
        @property
        def matches(self) -> list[int]: ...

        def go(self, step: int) -> None: ...

    async def action_to(self, widget: str, action: str) -> None:
        """A widget's key, bound here so it works from any panel: run its ``action`` there."""
        await self.query_one(f"#{widget}").run_action(action)

    def action_enter(self) -> None:
        """Enter: into the subagent's loop on a Task call that ran one, else unfold."""
        target = self.state.into()
        if target is None:
            self.query_one(StageView).action_unfold()
        else:
            self.go(target)

    def action_escape(self) -> None:
        """Escape: put out the search (less's way), else leave the subagent's loop."""
        if not self.query_one(SearchBar).clear():
            target = self.state.out()
            if target is not None:
                self.go(target)

    def action_next(self) -> None:
        """``n``: the next hit while there is a search, else the next turn (as before)."""
        bar = self.query_one(SearchBar)
        if bar.matches and bar.active:
            bar.action_hop(1)
        else:
            self.go(self.state.next_turn())

    def action_filter(self) -> None:
        """``f``: the timeline lists only the matching steps (again: every step)."""
        if self.query_one(Timeline).toggle_filter(self.matches):
            self.query_one(Frame).show_panel("timeline")  # a filter is no use unseen

    def action_goto(self) -> None:
        def chosen(step: int | None) -> None:
            if step is not None:
                self.go(step)
                self.set_focus(self.query_one(StageView))

        self.app.push_screen(GotoScreen(self.lang, len(self.index)), chosen)

    def action_copy(self) -> None:
        """Copy the focused panel's text (the raw JSON itself in raw mode)."""
        if len(self.index):
            focused = self.focused
            pager = focused if isinstance(focused, Pager) else self.query_one(StageView)
            text = pager.copy_text()
            self.app.copy_to_clipboard(text)
            self.notify(tr("copied", self.lang, n=text.count("\n") + 1), timeout=2)

    def action_language(self) -> None:
        """``t``: the other language, in every panel bound to it (the search bar searches the
        text on screen again)."""
        self.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]

    def ask_in_key_bar(self, words: str | None) -> bool:
        """Put ``words`` in the key bar in place of the keys (None: the keys again); False when
        the key bar is not in sight (a dialog is open, or a panel is zoomed)."""
        bar = self.query_one(KeyBar)
        bar.say(words)
        return self.app.screen is self and self.maximized is None and bar.display

    def action_tour(self, move: str) -> None:
        """``w`` ``W`` ``v``: the tour bar makes the move (or says there is no tour)."""
        self.query_one(TourBar).key(move)
