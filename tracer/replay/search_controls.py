"""The app's side of search: move to hits, light them, and filter the timeline.

:class:`SearchControls` is mixed into :class:`~tracer.replay.app.ReplayApp`. The search bar finds
(:mod:`tracer.replay.widgets.search_bar`); this moves. After Enter the step view has the keys:
``n`` / ``.`` / F3 go to the next hit and ``N`` / ``,`` / shift+F3 to the previous one (``n`` is
"next turn" again once there is no search), every hit in the step view is lit
(:meth:`highlight`), and ``f`` lists only the matching steps in the timeline (toolong's filter).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rich.text import Text

from tracer.replay import search
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.timeline import Timeline

#: How a hit is lit in the step view.
HIT = "bold black on #ff9e3d"


class SearchControls:
    """``/``, ``n`` ``N``, ``.`` ``,``, F3, ``f``."""

    filtering: bool
    _lighter_query: str = ""
    _lighter: Callable[[Text], Text] | None = None

    @property
    def matches(self) -> list[int]:
        app: Any = self
        return app.query_one(SearchBar).matches

    def highlight(self, text: Text) -> Text:
        """``text`` with every hit of the current search lit."""
        app: Any = self
        bar = app.query_one(SearchBar)
        found = search.pattern(bar.query_text) if bar.has_class("shown") else None
        if found is not None:
            text.highlight_regex(found, HIT)
        return text

    def reveal_hit(self) -> None:
        """Scroll the step view to the first hit, so the search lands where it is seen."""
        app: Any = self
        found = search.pattern(app.query_one(SearchBar).query_text)
        if found is not None:
            app.call_after_refresh(app.query_one("#stage").reveal, found)

    def hit_lighter(self) -> Callable[[Text], Text] | None:
        """The highlighter for the current search (one per query, so panels can cache by it)."""
        app: Any = self
        bar = app.query_one(SearchBar)
        query = bar.query_text if bar.has_class("shown") else ""
        if query != self._lighter_query:
            self._lighter_query = query
            found = search.pattern(query)

            def light(text: Text) -> Text:
                if found is not None:
                    text.highlight_regex(found, HIT)
                return text

            self._lighter = light if found is not None else None
        return self._lighter

    def action_search(self) -> None:
        app: Any = self
        app.query_one(SearchBar).open(app.lang)

    def on_search_bar_done(self, message: SearchBar.Done) -> None:
        app: Any = self
        app.query_one("#stage").focus()

    def on_search_bar_found(self, message: SearchBar.Found) -> None:
        app: Any = self
        bar = app.query_one(SearchBar)
        if message.again:
            self.action_match(1)
            return
        if self.filtering:
            app.query_one(Timeline).set_filter(message.matches or None)
        target = search.next_match(message.matches, app.step - 1)
        if target is not None:
            app.go(target)
        else:
            app.render_step()  # the highlights changed even if the step did not
        bar.show_count(app.step)
        self.reveal_hit()

    def action_match(self, direction: int) -> None:
        app: Any = self
        target = search.next_match(self.matches, app.step, forward=direction > 0)
        if target is not None:
            app.go(target)
            app.query_one(SearchBar).show_count(app.step)
            self.reveal_hit()

    def action_next(self) -> None:
        """``n``: the next hit while there is a search, else the next turn (as before)."""
        app: Any = self
        if self.matches and app.query_one(SearchBar).has_class("shown"):
            self.action_match(1)
        else:
            app.action_next_turn()

    def action_filter(self) -> None:
        """``f``: the timeline lists only the matching steps (again: every step)."""
        app: Any = self
        self.filtering = not self.filtering and bool(self.matches)
        app.query_one(Timeline).set_filter(self.matches if self.filtering else None)
        if self.filtering:
            app.wishes = replace(app.wishes, timeline=True, last="timeline")
            app.apply_layout()  # a filter is no use unseen
