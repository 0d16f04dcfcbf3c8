"""The command palette (ctrl+p): the app's actions, and every recording by name.

Textual's palette lists an app's "system commands". The replay offers its own actions in the
current language (:data:`tracer.view.i18n_keys.PALETTE`, each doing what its key does, and saying
which key that is) in place of Textual's English defaults, then one command per trace the
picker offers (:func:`tracer.view.opening.choices`), so typing ``max-turns`` or ``截断`` finds
a recording by its name or title and opens it. The app runs what is chosen.

:class:`ReplayCommands` is the provider that lists them (the app's ``COMMANDS``): Textual's own
(:class:`~textual.system_commands.SystemCommandsProvider`), plus one row when nothing matches
what was typed, in the reader's language. Textual's palette writes "No matches found" itself
when no provider has a hit, in English, and offers no public way to say it otherwise, so the
provider makes sure there is always a hit to show: that row, which does nothing when chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from rich.text import Text
from textual.app import SystemCommand
from textual.command import Hit, Hits
from textual.system_commands import SystemCommandsProvider

from tracer.replay.keys import action_of
from tracer.view.i18n import tr
from tracer.view.i18n_keys import PALETTE
from tracer.view.opening import choices

#: How the palette writes a key Textual names otherwise.
KEY_NAMES = {"slash": "/", "home": "Home", "end": "End", "question_mark": "?"}


def commands(
    lang: str, run: Callable[[str], object], open_trace: Callable[[Path], object]
) -> Iterable[SystemCommand]:
    """The palette's commands: ``run(action)`` for the app's actions, ``open_trace(path)``."""
    for key, words in PALETTE:
        text = words.get(lang) or words["en"]
        action = action_of(key)
        shown = tr("palette_key", lang, name=KEY_NAMES.get(key, key))  # the key does it too
        yield SystemCommand(text, shown, lambda a=action: run(a))
    for choice in choices():
        yield SystemCommand(
            tr("palette_open", lang, name=choice.label(lang)),
            str(choice.path),
            lambda p=choice.path: open_trace(p),
        )


@runtime_checkable
class _Speaking(Protocol):
    """An app that knows the reader's language (the replay app)."""

    @property
    def lang(self) -> str: ...


class ReplayCommands(SystemCommandsProvider):
    """The app's commands; when none matches, a row saying so in the reader's language."""

    async def search(self, query: str) -> Hits:
        found = False
        async for hit in super().search(query):
            found = True
            yield hit
        if not found:
            lang = self.app.lang if isinstance(self.app, _Speaking) else "en"
            words = tr("palette_no_matches", lang)
            yield Hit(0, Text(words, style="dim"), _nothing, text=words)


def _nothing() -> None:
    """What the "no matches" row does when chosen: nothing (the palette closes)."""
