"""The search bar (``/``): type, Enter, and every step whose text matches is found.

It behaves like less's search. The search runs in a worker thread
(:func:`tracer.view.search.search_rendered` renders every step, which takes a while on a
10,000-turn trace; it says how far it got) and the bar posts :class:`SearchBar.Found` when it is
done, then :class:`SearchBar.Hit` with the first hit from the cursor on. Enter hands the keys
back to the step view, so ``n`` ``N`` ``.`` ``,`` move between hits at once (each posts
:class:`SearchBar.Hit`); the bar stays, one line tall, and its counter follows the cursor
("match 2/5" on a hit, "after match 2/5" between hits): the bar is bound to the screen's
cursor, language and open trace (:attr:`SearchBar.step`, :meth:`SearchBar.show_count`), and
searches again when the language changes (the text on screen changed with it).
Escape in the box gives the keys back and keeps the last search; Escape after that (the app
calls :meth:`SearchBar.clear`) closes the bar and puts out every highlight
(:class:`SearchBar.Cleared`).

The bar owns the search's state (the query, the matches, the highlighter made from them); the
panels ask it for :meth:`SearchBar.lighter` when they draw. Its keys (``/`` and those between
hits) are made the screen's, so they work from any panel; ``n`` (the next hit, else the next
turn) is the screen's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from tracer.text.printable import PRINTABLE_LINE, printable
from tracer.view import search
from tracer.view.i18n import tr
from tracer.view.state import ReplayState
from tracer.view.steps import StepIndex


class SearchBar(Horizontal):
    """An input and a match count; hidden until opened."""

    SCREEN_KEYS = [  # noqa: RUF012 (Textual's own convention)
        Binding("slash,ideographic_comma", "open", "search", id="search"),
        Binding(
            "full_stop,ideographic_full_stop,f3",
            "hop(1)",
            "next match",
            show=False,
            id="next-match",
        ),
        Binding(
            "comma,fullwidth_comma,shift+f3,N",
            "hop(-1)",
            "previous match",
            show=False,
            id="previous-match",
        ),
    ]
    """Keys that work from any panel (the screen passes them on to the bar)."""

    @dataclass
    class Found(Message):
        """A search finished: its ``matches`` (0-based steps, ascending)."""

        matches: list[int]

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SearchBar.Found)  # (a newer search's hits)

    @dataclass
    class Hit(Message):
        """Go to 0-based ``step``, a hit (or the step the cursor is on: no hit from there)."""

        step: int

        def can_replace(self, message: Message) -> bool:
            # Hops reckoned from the same cursor lead to the same hit: the last one will do.
            return isinstance(message, SearchBar.Hit)

    @dataclass
    class Done(Message):
        """The reader left the box (Enter or Escape): the app gives the step view the keys."""

    @dataclass
    class Cleared(Message):
        """The search is gone (Escape after Enter): every panel redraws without highlights."""

    step: var[int] = var(0, init=False)
    """Where the cursor is (bound to the screen's)."""
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)

    def __init__(self, index: StepIndex, *, lang: str = "en", id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.set_reactive(SearchBar.lang, lang)
        self.query_text = ""
        self.matches: list[int] = []
        self._searched_lang = ""
        self._lighter: tuple[str, Callable[[Text], Text] | None] = ("", None)

    @property
    def active(self) -> bool:
        """Whether a search is on screen (its hits lit, ``n`` going to the next one)."""
        return self.has_class("shown") and bool(self.query_text.strip())

    def lighter(self) -> Callable[[Text], Text] | None:
        """The highlighter for the current search (one per query, so panels can cache by it)."""
        query = self.query_text if self.active else ""
        if self._lighter[0] != query:
            self._lighter = (query, search.lighter(query))
        return self._lighter[1]

    def watch_state(self, old: ReplayState | None, new: ReplayState | None) -> None:
        if new is not None and old is not None and new is not old:
            self.reset(new.index)

    def watch_step(self) -> None:
        if self.active:
            self.show_count(self.step)

    def watch_lang(self) -> None:
        self.query_one(Input).placeholder = tr("search_prompt", self.lang)
        if self.active:
            self.start(self.query_text)  # the text on screen changed language: search it again

    def reset(self, index: StepIndex) -> None:
        """Another trace was opened: forget the search and close the bar."""
        self.workers.cancel_group(self, "search")  # its hits would be the old trace's
        self.index, self.matches, self.query_text = index, [], ""
        self.query_one(Input).value = ""
        self.remove_class("shown")

    def clear(self) -> bool:
        """Forget the search and close the bar (False: there was none)."""
        if not self.has_class("shown"):
            return False
        self.workers.cancel_group(self, "search")
        self.matches, self.query_text = [], ""
        self.query_one(Input).value = ""
        self.query_one("#search-count", Static).update("")
        self.remove_class("shown")
        self.post_message(self.Cleared())
        return True

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder=tr("search_prompt", self.lang),
            id="search-input",
            compact=True,
            restrict=PRINTABLE_LINE,  # the query is echoed: nothing a terminal would obey
        )
        yield Static(id="search-count")

    def action_open(self) -> None:
        """``/``: open the bar and take the keys."""
        self.add_class("shown")
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Done())
        if event.value == self.query_text and self.matches and self._searched_lang == self.lang:
            self.action_hop(1)  # Enter on the same query: the next hit
            return
        self.start(event.value)

    def start(self, query: str) -> None:
        """Search for ``query`` in the current language (also used when the language changes)."""
        self.query_text = query
        self._searched_lang = self.lang
        if not query.strip():
            self._found([])
            self.remove_class("shown")
            return
        self.query_one("#search-count", Static).update(tr("searching", self.lang))
        self.run_search(query, self.lang)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":  # in the box: give the keys back, keep the last search
            event.stop()
            if not self.query_text:
                self.remove_class("shown")
            self.query_one(Input).value = self.query_text
            self.post_message(self.Done())

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, query: str, lang: str) -> None:
        worker = get_current_worker()
        path = getattr(self.index.reader, "path", None)
        if query.startswith(search.RAW_PREFIX):
            matches = search.search_steps(
                self.index, query.removeprefix(search.RAW_PREFIX), lambda: worker.is_cancelled
            )
        elif path is None or not len(self.index):
            matches = []
        else:
            matches = search.search_rendered(
                path,
                query,
                lang,
                lambda: worker.is_cancelled,
                lambda done, total: self.app.call_from_thread(self._progress, done, total),
            )
        if not worker.is_cancelled:
            self.app.call_from_thread(self._found, matches)

    def _progress(self, done: int, total: int) -> None:
        if total > search.PROGRESS_EVERY:
            percent = done * 100 // max(total, 1)
            self.query_one("#search-count", Static).update(
                f"{tr('searching', self.lang)} {percent}%"
            )

    def _found(self, matches: list[int]) -> None:
        self.matches = matches
        self.post_message(self.Found(matches))
        target = search.next_match(matches, self.step - 1)
        self.post_message(self.Hit(target if target is not None else self.step))

    def action_hop(self, direction: int) -> None:
        """``.`` ``,`` (``N``, F3): the next hit after the cursor, or the one before."""
        target = search.next_match(self.matches, self.step, forward=direction > 0)
        if target is not None:
            self.post_message(self.Hit(target))

    def show_count(self, step: int) -> None:
        """Where ``step`` is among the hits ("match n/N", "after match n/N"), or "no match"."""
        count = self.query_one("#search-count", Static)
        if not self.query_text:
            count.update("")
            return
        if not self.matches:
            words = tr("no_matches", self.lang, query=printable(self.query_text))  # echoed
        else:
            n, on_hit = search.position(self.matches, step)
            key = "matches" if on_hit else "matches_after"
            words = tr(key, self.lang, n=n, total=len(self.matches))
        count.update(f"{words} · {tr('search_clear_hint', self.lang)}")
