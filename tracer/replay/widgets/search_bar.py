"""The search bar (``/``): type, Enter, and every step whose content matches is found.

The search itself runs in a worker thread (:func:`tracer.replay.search.search_steps` reads every
line of the file, which takes a moment on a 10,000-turn trace) and the bar posts
:class:`SearchBar.Found` when it is done. It keeps the matches and says "match 2/5"; the app moves
between them (``.`` ``,`` F3, or Enter again). Escape closes the bar and gives the keys back.
"""

from __future__ import annotations

from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from tracer.replay import search
from tracer.replay.i18n import tr
from tracer.replay.steps import StepIndex


class SearchBar(Horizontal):
    """An input and a match count; hidden until opened."""

    class Found(Message):
        """A search finished (``again`` when Enter was pressed on the same query)."""

        def __init__(self, matches: list[int], again: bool = False) -> None:
            self.matches = matches
            self.again = again
            super().__init__()

    def __init__(self, index: StepIndex, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.lang = "en"
        self.query_text = ""
        self.matches: list[int] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder=tr("search_prompt", self.lang), id="search-input")
        yield Static(id="search-count")

    def open(self, lang: str) -> None:
        self.set_language(lang)
        self.add_class("shown")
        self.query_one(Input).focus()

    def set_language(self, lang: str) -> None:
        self.lang = lang
        self.query_one(Input).placeholder = tr("search_prompt", lang)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value == self.query_text and self.matches:
            self.post_message(self.Found(self.matches, again=True))
            return
        self.query_text = event.value
        self.query_one("#search-count", Static).update(tr("searching", self.lang))
        self.run_search(event.value)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.remove_class("shown")
            self.screen.set_focus(None)

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, query: str) -> None:
        worker = get_current_worker()
        matches = search.search_steps(self.index, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._found, matches)

    def _found(self, matches: list[int]) -> None:
        self.matches = matches
        self.post_message(self.Found(matches))

    def show_count(self, step: int) -> None:
        """"match n/N" for the current step ("–" when it is not a match), or "no match"."""
        count = self.query_one("#search-count", Static)
        if not self.query_text:
            count.update("")
        elif not self.matches:
            count.update(tr("no_matches", self.lang, query=self.query_text))
        else:
            position = self.matches.index(step) + 1 if step in self.matches else "–"
            count.update(tr("matches", self.lang, n=position, total=len(self.matches)))
