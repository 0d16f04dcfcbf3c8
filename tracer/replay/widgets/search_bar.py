"""The search bar (``/``): type, Enter, and every step whose text matches is found.

The search runs in a worker thread (:func:`tracer.replay.search.search_rendered` renders every
step, which takes a while on a 10,000-turn trace; it says how far it got) and the bar posts
:class:`SearchBar.Found` when it is done. Enter hands the keys back to the step view, so ``n``
``N`` ``.`` ``,`` move between hits at once; the bar stays, one line tall, with its "match 2/5",
until the next search. Escape in the box also hands the keys back without losing the matches.
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

    class Done(Message):
        """The reader left the box (Enter or Escape): the app gives the step view the keys."""

    def __init__(self, index: StepIndex, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.lang = "en"
        self.query_text = ""
        self.matches: list[int] = []
        self._searched_lang = ""

    def reset(self, index: StepIndex) -> None:
        """Another trace was opened: forget the search and close the bar."""
        self.index, self.matches, self.query_text = index, [], ""
        self.query_one(Input).value = ""
        self.remove_class("shown")

    def compose(self) -> ComposeResult:
        yield Input(placeholder=tr("search_prompt", self.lang), id="search-input", compact=True)
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
        self.post_message(self.Done())
        if event.value == self.query_text and self.matches and self._searched_lang == self.lang:
            self.post_message(self.Found(self.matches, again=True))
            return
        self.start(event.value)

    def start(self, query: str) -> None:
        """Search for ``query`` in the current language (also used when the language changes)."""
        self.query_text = query
        self._searched_lang = self.lang
        if not query.strip():
            self.matches = []
            self.remove_class("shown")
            self.post_message(self.Found([]))
            return
        self.query_one("#search-count", Static).update(tr("searching", self.lang))
        self.run_search(query, self.lang)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            if not self.query_text:
                self.remove_class("shown")
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

    def show_count(self, step: int) -> None:
        """ "match n/N" for the current step ("–" when it is not a match), or "no match"."""
        count = self.query_one("#search-count", Static)
        if not self.query_text:
            count.update("")
        elif not self.matches:
            count.update(tr("no_matches", self.lang, query=self.query_text))
        else:
            position = self.matches.index(step) + 1 if step in self.matches else "–"
            count.update(tr("matches", self.lang, n=position, total=len(self.matches)))
