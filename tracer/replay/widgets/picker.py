"""The picker (``O``, or "open" in the command palette): choose another trace to replay.

It lists :func:`tracer.view.opening.choices`: the chapter's recordings, the fault recordings,
the traces in the current folder, the recent files and the local Claude Code sessions, each
with its title in the current language. Enter (or a click)
dismisses the screen with the chosen path; the app opens it in place. Escape closes it.
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

from tracer.text.printable import printable_text
from tracer.view.i18n import tr
from tracer.view.opening import Choice

#: The widest a row may be: the box is 90 columns, less its border, padding and the list's own.
LABEL_WIDTH = 80


class PickerScreen(ModalScreen[Path | None]):
    """A list of traces; dismissed with the chosen path, or None."""

    AUTO_FOCUS = "OptionList"
    BINDINGS = [Binding("escape,q", "cancel", "close", id="close-picker")]  # noqa: RUF012

    def __init__(self, lang: str, choices: list[Choice], current: Path | None = None) -> None:
        super().__init__()
        self.lang, self.choices, self.current = lang, choices, current

    def compose(self) -> ComposeResult:
        options: list[Option | None] = []
        # The box is 90 columns, or 95% of a narrower screen: less its border and padding.
        width = min(LABEL_WIDTH, max(min(90, int(self.app.size.width * 0.95)) - 14, 20))
        section = None
        highlighted = 0
        for number, choice in enumerate(self.choices):
            group = choice.group
            if group != section:
                section = group
                options.append(
                    Option(Text(tr(f"picker_{group}", self.lang), style="bold"), disabled=True)
                )
            label = Text(f"  {choice.name}", style="bold", no_wrap=True, overflow="ellipsis")
            words = choice.words(self.lang)  # (or, for a file that is no trace, why not)
            if words:
                label.append(f"  {words}", style="red" if choice.problem else "dim")
            label = printable_text(label)  # a file's name and a trace's title are input
            label.truncate(width, overflow="ellipsis")  # one line a recording
            options.append(Option(label, id=f"trace-{number}"))
            if self.current is not None and _same(choice.path, self.current):
                highlighted = len(options) - 1
        with Vertical(id="picker-box"):
            yield Static(tr("picker_title", self.lang), id="picker-title")
            option_list = OptionList(*options, id="picker-list")
            yield option_list
            yield Static(tr("picker_hint", self.lang), id="picker-hint")
        self._highlighted = highlighted

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self._highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option_id or ""
        if option_id.startswith("trace-"):
            self.dismiss(self.choices[int(option_id.removeprefix("trace-"))].path)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
