"""The tour's two screens: a card to read (a section, a revealed answer) and a question to answer.

:class:`TourCard` shows Rich text the app prepared and closes on Enter (or Escape); its text, and
a question's, is wrapped the Chinese way (:class:`~tracer.replay.widgets.wrapped_text.WrappedText`).
:class:`TourQuestion` asks a checkpoint's question before the reader steps on: a numbered list of
choices (keys ``1``–``9``, or ↑ ↓ and Enter) or a box for a number. It dismisses with the answer
as text, or ``None`` when the reader skips; checking the answer is the app's (and
:class:`tracer.replay.tour.Tour`'s) business.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tracer.replay.checkpoints import Question
from tracer.replay.tour_words import say
from tracer.replay.widgets.wrapped_text import WrappedText


class TourCard(ModalScreen[None]):
    """Text to read; Enter or Escape closes it."""

    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("enter,escape,space", "dismiss(None)", "close"),
    ]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-box"):
            yield Static(Text(self.title_text, style="bold"), id="tour-title")
            with VerticalScroll(id="tour-body"):
                yield WrappedText(self.body)


class TourQuestion(ModalScreen[str | None]):
    """One checkpoint's question; dismisses with the answer (or None to skip)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "skip")]  # noqa: RUF012

    def __init__(self, title: str, question: Question, prompt: str, lang: str) -> None:
        super().__init__()
        self.title_text, self.question, self.prompt, self.lang = title, question, prompt, lang

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-box"):
            yield Static(Text(self.title_text, style="bold"), id="tour-title")
            yield Static(Text(say("predict", self.lang), style="bold cyan"))
            yield WrappedText(self.prompt, id="tour-prompt")
            if self.question.numeric:
                yield Input(id="tour-answer", type="integer")
                hint = say("number_hint", self.lang)
            else:
                yield OptionList(
                    *(
                        Option(f"{n}  {c.text(self.lang)}", id=c.value)
                        for n, c in enumerate(self.question.choices, 1)
                    ),
                    id="tour-choices",
                )
                hint = say("choose_hint", self.lang, n=len(self.question.choices))
            yield Static(Text(hint, style="dim"), id="tour-hint")

    def on_mount(self) -> None:
        if self.question.numeric:
            self.query_one(Input).focus()
        else:
            listing = self.query_one(OptionList)
            listing.highlighted = 0
            listing.focus()

    def on_key(self, event: events.Key) -> None:
        """Digits pick a choice directly (Python Tutor style: one key per guess)."""
        if self.question.numeric or not (event.character or "").isdigit():
            return
        number = int(event.character or "0")
        if 1 <= number <= len(self.question.choices):
            event.stop()
            self.dismiss(self.question.choices[number - 1].value)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())
