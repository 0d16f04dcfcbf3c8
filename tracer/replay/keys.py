"""Every key of the replay screen, in one place (the help screen is generated from them).

Keys are the same in both languages; Chinese punctuation typed with an input method (、。，【】
＋？) works as its ASCII twin does. Vim-style alternatives sit beside the arrows (h l here, j k in
the panels).

Each key belongs to the widget whose state it changes, and is declared in that widget's file as
its ``SCREEN_KEYS``: the step keys and autoplay are the transport's
(:class:`~tracer.replay.widgets.progress.StepBar`), the layout keys the frame's, the fold and
raw keys the step view's, ``d`` the findings panel's, ``/`` the search bar's, ``s`` the chapter
column's, ``O`` the loader's, ``?`` the key bar's. The keys that change what several widgets
show (Enter, Escape, the keys between search hits, ``f``, ``t``…) are the screen's own
(:data:`OWN`). All of them are bound on the replay screen
(:class:`tracer.replay.screen.ReplayScreen`) so they work whichever panel has the focus, and not
under a dialog, which is modal: :func:`routed` turns a widget's key into the screen's, whose
``to`` action passes it on to the widget by its id. ↑ ↓ PgUp PgDn belong to the focused panel
(each widget binds its own), and reach the step view's screen-level ones only when no panel
takes them.

Every binding has an ``id`` (Textual's ``Binding(..., id=...)``): the help screen finds each
one's line by it (:data:`tracer.view.i18n_keys.HELP_LINES`, the words in both languages), and a
keymap (``App.set_keymap``, binding id → keys) can move any key; the help then says where it went.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import Binding

from tracer.replay.widgets.chapter_column import ChapterColumn
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.key_bar import KeyBar
from tracer.replay.widgets.loader import TraceLoader
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView

OWN = [
    Binding("n", "next", "next match / next turn", show=False, id="next"),
    Binding("g", "goto", "go to", id="go-to"),
    Binding("f", "filter", "filter", id="filter"),
    Binding("t", "language", "language", id="language"),
    Binding("y", "copy", "copy", id="copy"),
    # Enter steps into a subagent's loop on its Task call, and unfolds everywhere else.
    Binding("enter", "enter", "unfold / into subagent", show=False, id="enter"),
    # Escape puts out a search first (as in less), then leaves a subagent's loop.
    Binding("escape", "escape", "clear search / out of subagent", show=False, id="escape"),
    Binding("w", "tour('next')", "next stop", show=False, id="next-stop"),
    Binding("W,B", "tour('back')", "previous stop", show=False, id="previous-stop"),
    Binding("v", "tour('review')", "review answers", show=False, id="review-answers"),
    Binding("q", "app.quit", "quit", id="quit"),  # the app's action: these keys are the screen's
]
"""The screen's own keys."""


def routed(owner: str, keys: list[Binding]) -> list[Binding]:
    """``keys`` of the widget whose id is ``owner``, as the screen's: each runs the widget's
    action through the screen's ``to`` action."""
    return [replace(key, action=f"to({owner!r}, {key.action!r})") for key in keys]


KEYS = [
    *routed("step-bar", StepBar.SCREEN_KEYS),
    *routed("main", Frame.SCREEN_KEYS),
    *routed("stage", StageView.SCREEN_KEYS),
    *routed("findings", FindingsPanel.SCREEN_KEYS),
    *routed("search-bar", SearchBar.SCREEN_KEYS),
    *routed("chapter", ChapterColumn.SCREEN_KEYS),
    *routed("loader", TraceLoader.SCREEN_KEYS),
    *routed("keys", KeyBar.SCREEN_KEYS),
    *OWN,
]
"""Every key of the replay screen."""


def action_of(key: str) -> str:
    """The action the screen runs for ``key`` (the command palette runs what a key does)."""
    return next(b.action for b in KEYS if key in b.key.split(","))
