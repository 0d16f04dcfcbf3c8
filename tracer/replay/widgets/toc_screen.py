"""The table of contents (key ``s``): the chapter's sections, and where each one shows.

Sections in the book's order, each followed by the recordings and steps that show it
(:func:`tracer.view.sections.bundled_contents`: recordings the guide or the scenario chose
first, then a few where the step's kind alone leads there; Enter on "… and N more recordings"
lists the rest). Enter on a recording dismisses the screen with ``(path, step)``; the app opens
it, with the chapter panel shown so the section is in view. The list scrolls under its pinned
title and key line, so all twelve sections fit an 80x24 terminal. Like the help screen, it only
says what was chosen; it never moves the replay itself.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tracer.tour.words import ranges_text, say
from tracer.view.i18n import pick
from tracer.view.sections import Contents

#: Recordings listed under a section only because of their steps' kind (the rest are counted).
MORE_AT_MOST = 2


class TocScreen(ModalScreen[tuple[Path, int] | None]):
    """Sections and their recordings; Enter chooses, ``escape s q`` close."""

    AUTO_FOCUS = "OptionList"
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("escape,s,q", "dismiss(None)", "close", id="close-contents"),
        Binding("j", "move(1)", "down", show=False, id="contents-down"),
        Binding("k", "move(-1)", "up", show=False, id="contents-up"),
    ]

    def __init__(self, contents: Contents, lang: str, current: str | None = None) -> None:
        super().__init__()
        self.contents, self.lang, self.current = contents, lang, current
        self.targets: dict[str, tuple[Path, int]] = {}
        self.expanded: set[str] = set()
        """Sections whose "… and N more" row was opened: all their recordings are listed."""

    def compose(self) -> ComposeResult:
        with Vertical(id="toc-box"):
            yield Static(
                Text(say("toc_title", self.lang, n=len(self.contents.sections)), style="bold"),
                id="toc-title",
            )
            yield OptionList(*self._options(), id="toc-list")
            yield Static(say("toc_hint", self.lang), id="toc-hint")

    def _options(self) -> list[Option]:
        options: list[Option] = []
        for number, section in enumerate(self.contents.sections, 1):
            marker = "▶ " if section.id == self.current else ""
            options.append(
                Option(
                    Text(f"{marker}{number:>2}  {pick(section.title, self.lang)}", style="bold"),
                    disabled=True,
                )
            )
            entries = self.contents.of(section.id)
            shown = [e for e in entries if e.featured]
            rest = [e for e in entries if not e.featured]
            most = len(rest) if section.id in self.expanded else MORE_AT_MOST
            shown += rest[:most]
            if not shown:
                options.append(
                    Option(Text("     " + say("toc_none", self.lang), style="dim"), disabled=True)
                )
            for entry in shown:
                key = f"{section.id}|{entry.recording.name}"
                self.targets[key] = (
                    entry.recording.path or Path(entry.recording.name),
                    entry.first,
                )
                line = Text("     ")
                line.append(entry.recording.name, style="" if entry.featured else "dim")
                line.append("  " + ranges_text(entry.ranges(), self.lang), style="dim")
                options.append(Option(line, id=key))
            if len(rest) > most:
                options.append(
                    Option(
                        Text(
                            "     " + say("toc_more", self.lang, n=len(rest) - most),
                            style="dim italic",
                        ),
                        id=f"more|{section.id}",
                    )
                )
        return options

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        first = next(
            (i for i in range(listing.option_count) if not listing.get_option_at_index(i).disabled),
            None,
        )
        listing.highlighted = first

    def action_move(self, delta: int) -> None:
        listing = self.query_one(OptionList)
        (listing.action_cursor_down if delta > 0 else listing.action_cursor_up)()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        if option_id.startswith("more|"):  # list the rest of the section's recordings
            self.expanded.add(option_id.removeprefix("more|"))
            listing = self.query_one(OptionList)
            at = event.option_index
            listing.clear_options()
            listing.add_options(self._options())
            listing.highlighted = at  # the first of the recordings that were hidden
            return
        target = self.targets.get(option_id)
        if target is not None:
            self.dismiss(target)
