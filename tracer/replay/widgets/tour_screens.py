"""The tour's screens: a card to read, a question to answer, and the list of answers given.

:class:`TourCard` shows Rich text the tour prepared. :class:`TourQuestion` asks a checkpoint's
question before the reader steps on: a numbered list of choices (keys ``1``–``9``, or ↑ ↓ then
Enter; Enter alone picks nothing, it asks for a choice first) or a box for a number.
:class:`ReviewScreen` lists the checkpoints with the reader's answers; Enter on one answered goes
to the step that shows its answer (the evidence), and on one skipped asks it.

Every one of them scrolls its body and keeps its key line pinned at the bottom, so it fits an
80x24 terminal, and every one takes the tour's own keys: ``w`` next stop (on a question: skip
it), ``W`` previous stop, ``v`` the answers; ``q`` quits from a card or a question, as the
footer says it does. A screen only says what the reader chose (its
dismiss value, a :data:`Move` or an :class:`Answer`); moving is the tour bar's business
(:mod:`tracer.replay.widgets.tour_bar`), and checking an answer :class:`tracer.tour.stops.Tour`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tracer.replay.widgets.pager import Pager
from tracer.replay.widgets.wrapped_text import WrappedText
from tracer.tour.checkpoints import Question
from tracer.tour.words import say

#: What a tour key asks for: the next stop, the previous one, the list of answers.
Move = Literal["next", "back", "review"]

#: The tour's keys on each of its screens (the same as the app's, so they work everywhere).
TOUR_KEYS = [
    Binding("w", "dismiss('next')", "next stop", id="next-stop"),
    Binding("W,B", "dismiss('back')", "previous stop", id="previous-stop"),
    Binding("v", "dismiss('review')", "review answers", id="review-answers"),
    Binding("q", "app.quit", "quit", show=False, id="quit"),
]


@dataclass(frozen=True)
class Answer:
    """The reader's prediction, as text (a choice's value or the number typed)."""

    given: str


class TourCard(ModalScreen[Move | None]):
    """Text to read; Enter or Escape closes it, the tour keys move on.

    The body is a :class:`~tracer.replay.widgets.pager.Pager`, which wraps Chinese between
    characters and an identifier only at its edges (``ToolRunner.add_tool_result`` stays one
    piece), and scrolls with ↑ ↓ ``j`` ``k`` PgUp PgDn."""

    AUTO_FOCUS = "#tour-body"
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("enter,escape,space", "dismiss(None)", "close", id="close-card"),
        *TOUR_KEYS,
    ]

    def __init__(self, title: str, body: Text, lang: str) -> None:
        super().__init__()
        self.title_text, self.body, self.lang = title, body, lang

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-box"):
            yield Static(Text(self.title_text, style="bold"), id="tour-title")
            yield Pager(id="tour-body")
            yield Static(Text(say("card_keys", self.lang), style="dim"), id="tour-hint")

    def on_mount(self) -> None:
        self.query_one(Pager).show(self.body)


class NumberBox(Input):
    """The box for a number: it takes digits, so the tour's letters (w W v) stay tour keys."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and (character.isdigit() or character in "+-")

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not self.check_consume_key(event.key, event.character):
            event.prevent_default()  # not typed: the key goes on to the screen's bindings


class ChoiceList(OptionList):
    """The choices. ↑ ↓ move the highlight, which is the reader's answer-to-be; Home End PgUp
    PgDn only scroll the question (an OptionList's own would highlight the first or the last
    choice unasked, and a later Enter would submit it)."""

    BINDINGS = [  # noqa: RUF012 (these keys replace OptionList's own)
        Binding("home", "scroll_body('home')", show=False, id="question-top"),
        Binding("end", "scroll_body('end')", show=False, id="question-bottom"),
        Binding("pageup", "scroll_body('page_up')", show=False, id="question-page-up"),
        Binding("pagedown", "scroll_body('page_down')", show=False, id="question-page-down"),
    ]

    def action_scroll_body(self, where: str) -> None:
        body = self.parent
        if not isinstance(body, VerticalScroll):
            return
        if where in ("home", "end"):
            # At once: Textual otherwise moves to either end only after the next refresh, and
            # on a busy machine the next key could be read before the question had moved.
            getattr(body, f"scroll_{where}")(animate=False, immediate=True)
        else:
            getattr(body, f"scroll_{where}")(animate=False)


class TourQuestion(ModalScreen[Answer | Move | None]):
    """One checkpoint's question; dismisses with the :class:`Answer`, a move, or None."""

    BINDINGS = [  # noqa: RUF012
        Binding("escape", "dismiss(None)", "not now", id="not-now"),
        *TOUR_KEYS,
    ]

    def __init__(self, title: str, question: Question, prompt: str, lang: str) -> None:
        super().__init__()
        self.title_text, self.question, self.prompt, self.lang = title, question, prompt, lang

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-box"):
            yield Static(Text(self.title_text, style="bold"), id="tour-title")
            with VerticalScroll(id="tour-body"):
                yield Static(Text(say("predict", self.lang), style="bold cyan"))
                yield WrappedText(self.prompt, id="tour-prompt")  # wrapped the Chinese way
                if self.question.numeric:
                    yield NumberBox(id="tour-answer", type="integer")
                    hint = say("number_hint", self.lang)
                else:
                    yield ChoiceList(
                        *(
                            Option(f"{n}  {c.text(self.lang)}", id=c.value)
                            for n, c in enumerate(self.question.choices, 1)
                        ),
                        id="tour-choices",
                    )
                    hint = say("choose_hint", self.lang, n=len(self.question.choices))
            yield Static(
                Text(f"{hint}\n{say('question_keys', self.lang)}", style="dim"), id="tour-hint"
            )

    def on_mount(self) -> None:
        if self.question.numeric:
            self.query_one(Input).focus()
        else:
            listing = self.query_one(OptionList)
            listing.highlighted = None  # no choice is made for the reader: Enter asks for one
            listing.focus()

    def on_key(self, event: events.Key) -> None:
        """Digits pick a choice directly (Python Tutor style: one key per guess); Enter with
        nothing chosen says to choose first."""
        if self.question.numeric:
            return
        listing = self.query_one(OptionList)
        if event.key == "enter" and listing.highlighted is None:
            event.stop()
            self.notify(say("choose_first", self.lang, n=len(self.question.choices)))
            return
        if not (event.character or "").isdigit():
            return
        number = int(event.character or "0")
        if 1 <= number <= len(self.question.choices):
            event.stop()
            self.dismiss(Answer(self.question.choices[number - 1].value))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(Answer(event.option.id))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(Answer(event.value.strip()))


@dataclass(frozen=True)
class Reviewed:
    """One row of the review: a checkpoint, the reader's answer (if any), where it shows."""

    name: str
    given: str | None
    right: bool
    recording: Path
    step: int
    """The 0-based step that shows the answer."""
    position: int = 0
    """Where the checkpoint is among the tour's stops (a skipped one is asked there)."""


class ReviewScreen(ModalScreen[Reviewed | None]):
    """Every checkpoint with the reader's mark; Enter chooses one (the tour bar goes to its
    answer, or asks it if it was skipped)."""

    AUTO_FOCUS = "OptionList"
    BINDINGS = [  # noqa: RUF012
        Binding("escape,v,q", "dismiss(None)", "close", id="close-review"),
        Binding("j", "move(1)", "down", show=False, id="review-down"),
        Binding("k", "move(-1)", "up", show=False, id="review-up"),
    ]

    def __init__(self, rows: list[Reviewed], lang: str) -> None:
        super().__init__()
        self.rows, self.lang = rows, lang

    def compose(self) -> ComposeResult:
        options = []
        for number, row in enumerate(self.rows):
            if row.given is None:
                line = Text(f"  · {row.name}", style="dim")
            else:
                mark, style = ("✓", "green") if row.right else ("✗", "red")
                line = Text(f"  {mark} {row.name}", style=style)
                line.append("  " + say("review_given", self.lang, given=row.given), style="dim")
            options.append(Option(line, id=f"row-{number}"))
        with Vertical(id="tour-box"):
            yield Static(Text(say("review_title", self.lang), style="bold"), id="tour-title")
            yield OptionList(*options, id="review-list")
            yield Static(Text(say("review_hint", self.lang), style="dim"), id="tour-hint")

    def action_move(self, delta: int) -> None:
        listing = self.query_one(OptionList)
        (listing.action_cursor_down if delta > 0 else listing.action_cursor_up)()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.rows[int((event.option.id or "row-0").removeprefix("row-"))])
