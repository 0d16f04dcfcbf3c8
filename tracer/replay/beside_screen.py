"""The comparison screen of ``tracer replay A --beside B``: two runs, one row at a time.

Attributes down, messages up, as on the replay screen: the screen holds the
:class:`~tracer.compare.beside.Comparison` (the rows and the cursor, pure) and binds every key; on
each move it hands each :class:`~tracer.replay.widgets.beside_column.BesideColumn` its title and
its side's step, rendered by the replay's own renderers (:mod:`tracer.compare.render_beside`), and
the position line says where the cursor is and how the sides compare. It opens on the summary
(:class:`~tracer.replay.widgets.beside_summary.BesideSummary`); a step key starts the rows.

It mirrors no Claude Code file: it puts two recordings of ``query.ts``'s loop side by side.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from tracer.compare.beside import Comparison, summary_text
from tracer.compare.beside_words import word
from tracer.compare.render_beside import row_texts
from tracer.replay.widgets.beside_column import BesideColumn
from tracer.replay.widgets.beside_help import BesideHelp
from tracer.replay.widgets.beside_summary import BesideSummary
from tracer.view.diagnose import diagnose
from tracer.view.i18n import LANGS, severity_mark
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.doctor.finding import Finding

#: Keys 1–4: the four steps of a result's journey, in the book's order.
STATIONS = ("mapping", "wrapping", "appending", "resending")

KEYS = [
    Binding("right,l,space", "move(1)", "next row", show=False, id="next-row"),
    Binding("left,h", "move(-1)", "previous row", show=False, id="previous-row"),
    Binding("home,less_than_sign", "edge(0)", "first row", show=False, id="first-row"),
    Binding("end,greater_than_sign", "edge(1)", "last row", show=False, id="last-row"),
    Binding(
        "right_square_bracket,right_black_lenticular_bracket",
        "turn(1)",
        "next turn",
        show=False,
        id="next-turn",
    ),
    Binding(
        "left_square_bracket,p,left_black_lenticular_bracket",
        "turn(0)",
        "turn",
        show=False,
        id="previous-turn",
    ),
    *(
        Binding(str(n), f"stage({stage!r})", stage, show=False, id=f"go-to-{stage}")
        for n, stage in enumerate(STATIONS, 1)
    ),
    Binding("n", "difference(1)", "next difference", show=False, id="next-difference"),
    Binding("N", "difference(0)", "previous difference", show=False, id="previous-difference"),
    Binding("d", "finding", "next finding", show=False, id="next-finding"),
    Binding("down,j", "scroll(1)", "scroll down", show=False, id="scroll-down"),
    Binding("up,k", "scroll(-1)", "scroll up", show=False, id="scroll-up"),
    Binding("pagedown", "page(1)", "page down", show=False, id="page-down"),
    Binding("pageup", "page(-1)", "page up", show=False, id="page-up"),
    Binding("s", "summary", "summary", show=False, id="summary"),
    Binding("t", "language", "language", show=False, id="language"),
    Binding("question_mark,fullwidth_question_mark,f1", "help", "help", show=False, id="help"),
    Binding("q", "app.quit", "quit", show=False, id="quit"),
]
"""Every key of the comparison, each with an ``id`` (the replay's where a key means the same, so
one keymap serves both); its help is generated from them (:data:`tracer.compare.beside_words.HELP`
and :data:`~tracer.compare.beside_words.HELP_LINES` hold the words)."""


class BesideScreen(Screen[None]):
    """Two runs aligned row by row; keys move both sides together."""

    BINDINGS = [*KEYS]  # noqa: RUF012 (Textual's convention; its type: a list of any binding form)

    def __init__(
        self, comparison: Comparison, indexes: tuple[StepIndex, StepIndex], lang: str = "en"
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.indexes = indexes
        self.lang = lang if lang in LANGS else "en"
        self.summary_shown = True

    def compose(self) -> ComposeResult:
        yield Static(id="beside-position")
        with Horizontal(id="beside-columns"):
            yield BesideColumn(id="side-a")
            yield BesideColumn(id="side-b")
        yield BesideSummary(id="beside-summary")
        yield Static(id="beside-keys")

    def on_mount(self) -> None:
        self.draw()
        for side in sorted(self.comparison.pending):  # a big trace: after the first frame
            self.call_after_refresh(self._check, side)

    @work(thread=True, group="doctor")
    def _check(self, side: int) -> None:
        """Run the doctor on one side with a reader of its own (the screen's is never shared)."""
        result = diagnose(self.indexes[side].reader.path)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._checked, side, result.findings)

    def _checked(self, side: int, findings: tuple[Finding, ...]) -> None:
        self.comparison.place(side, findings)
        if self.summary_shown:
            self.draw()
        else:  # the columns stay where the reader scrolled them
            self._draw_position()

    # Drawing: everything follows from the comparison's cursor and the language.

    def draw(self) -> None:
        shown = self.summary_shown
        self.query_one("#beside-summary", BesideSummary).set_class(shown, "shown")
        self.query_one("#beside-columns").set_class(shown, "hidden")
        self.query_one("#beside-position").set_class(shown, "hidden")
        self.query_one("#beside-keys", Static).update(word("keys", self.lang))
        if shown:
            summary = self.query_one("#beside-summary", BesideSummary)
            summary.show(summary_text(self.comparison, self.lang))
            return
        self._draw_position()
        comparison = self.comparison
        row = comparison.current
        texts = row_texts(self.indexes, row, self.lang)
        lit = comparison.lit()
        for k, column_id in enumerate(("side-a", "side-b")):
            step = row.a if k == 0 else row.b
            # The step first: a long name is cut at the column's edge, never the step.
            where = (
                word("no_step_here", self.lang)
                if step is None
                else word("side_step", self.lang, step=step + 1, total=len(self.indexes[k]))
            )
            key = "column_a" if k == 0 else "column_b"
            title = word(key, self.lang, where=where, name=comparison.names[k])
            column = self.query_one(f"#{column_id}", BesideColumn)
            column.show(title, texts[k], lit=lit[k])

    def _draw_position(self) -> None:
        """The position line: turn, step of the journey, row, how the sides compare, and the
        doctor's findings on this row."""
        comparison = self.comparison
        position = Text(comparison.position(self.lang))
        for placed in comparison.findings_here():
            finding, key = placed.finding, "finding_here_b" if placed.side else "finding_here_a"
            mark = f" · {severity_mark(finding.severity)} "
            position.append(mark + word(key, self.lang, rule=finding.rule), "bold")
        bar = self.query_one("#beside-position", Static)
        bar.update(position)
        bar.set_class(comparison.current.change != "same", "-differs")

    def _leave_summary(self) -> bool:
        """Close the summary, if open; whether it was."""
        was = self.summary_shown
        self.summary_shown = False
        return was

    # The keys.

    def action_move(self, delta: int) -> None:
        if not self._leave_summary():  # the first step key shows the row the summary left at
            self.comparison.step(delta)
        self.draw()

    def action_edge(self, last: int) -> None:
        self._leave_summary()
        self.comparison.go(len(self.comparison.rows) - 1 if last else 0)
        self.draw()

    def action_turn(self, forward: int) -> None:
        self._leave_summary()
        self.comparison.next_turn(bool(forward))
        self.draw()

    def action_stage(self, stage: str) -> None:
        self._leave_summary()
        self.comparison.next_stage(stage)
        self.draw()

    def action_difference(self, forward: int) -> None:
        here = self._leave_summary()  # from the summary, n finds the first from row 1
        found = self.comparison.next_difference(bool(forward), here=here and bool(forward))
        if not found and not here:
            self.notify(word("no_difference", self.lang))
        self.draw()

    def action_finding(self) -> None:
        here = self._leave_summary()
        if not self.comparison.next_finding(here=here):
            self.notify(word("no_finding", self.lang))
        self.draw()

    def action_summary(self) -> None:
        self.summary_shown = not self.summary_shown
        self.draw()

    def action_language(self) -> None:
        self.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]
        self.draw()

    def action_help(self) -> None:
        from tracer.compare.beside_words import HELP, HELP_LINES
        from tracer.replay.help import bound_here, help_rows, key_display, keymap_of

        bound, keymap = bound_here(self), keymap_of(self.app)
        rows = help_rows(bound, keymap, key_display(self.app), HELP, HELP_LINES)
        self.app.push_screen(BesideHelp(self.lang, rows))

    def action_scroll(self, lines: int) -> None:
        for target in self._scrolled():
            target.scroll_lines(lines)

    def action_page(self, pages: int) -> None:
        for target in self._scrolled():
            target.scroll_page(pages)

    def _scrolled(self) -> list[BesideColumn | BesideSummary]:
        if self.summary_shown:
            return [self.query_one("#beside-summary", BesideSummary)]
        return list(self.query(BesideColumn))
