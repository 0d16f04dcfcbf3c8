"""The command palette (ctrl+p): the app's actions, and every recording by name.

Textual's palette lists an app's "system commands". The replay offers its own actions in the
current language (:data:`tracer.replay.i18n.PALETTE`, each doing what its key does) in place of
Textual's English defaults, then one command per trace the picker offers
(:func:`tracer.replay.opening.choices`), so typing ``max-turns`` or ``截断`` finds a recording
by its name or title and opens it. Pure listing: the app runs what is chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import SystemCommand

from tracer.replay.i18n import PALETTE, tr
from tracer.replay.keys import action_of
from tracer.replay.opening import choices


def commands(
    lang: str, run: Callable[[str], object], open_trace: Callable[[Path], object]
) -> Iterable[SystemCommand]:
    """The palette's commands: ``run(action)`` for the app's actions, ``open_trace(path)``."""
    for key, words in PALETTE:
        text = words.get(lang) or words["en"]
        action = action_of(key)
        yield SystemCommand(text, "", lambda a=action: run(a))
    for choice in choices():
        yield SystemCommand(
            tr("palette_open", lang, name=choice.label(lang)),
            str(choice.path),
            lambda p=choice.path: open_trace(p),
        )
