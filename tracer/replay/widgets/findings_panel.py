"""The findings panel (key ``d``): what the doctor found, and a way to jump to each.

Each row is one finding of :func:`tracer.doctor.run_doctor`: its severity and rule id, the step
and turn where to look, the doctor's one-line message and the guide's "how to check" hint in the
current language (:func:`~tracer.view.finding_text.finding_text` writes it). Choosing a row
(Enter, or a click) posts :class:`FindingsPanel.Selected` with its step; the app moves the
cursor, as it does for the timeline and the progress bar.

The panel also runs the doctor (:meth:`FindingsPanel.check`, through
:mod:`tracer.view.diagnose`, which decides when): at once on a small trace, in a background
thread on a bigger one (with a reader of its own, so the screen's reader is never shared between
threads), or, on a huge trace nobody asked about, once the panel is first opened. When it is done
it posts :class:`FindingsPanel.Diagnosed`; with ``--doctor`` the panel says what was found
(:class:`~tracer.view.diagnose.DoctorWatch` decides) and opens itself, and the screen marks
the timeline and goes to the first finding. A finding taller than the panel scrolls with ↑ ↓
(``j`` ``k``), a line at a time, so its end can always be read; PgDn on the last finding (PgUp
on the first) scrolls a page, Home goes to the top of the first finding and End to the bottom
of the last. ``d`` (the panel's, made the
screen's so it works from any panel) shows the panel and gives it the keys, and hides it again
(so does Escape in it); :class:`FindingsPanel.Toggled` says so, and the screen gives the step
view the keys back. Bound to the screen's cursor and language (attributes down), the panel
redraws itself on every move, cheaply: the list is only filled again when what it says changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widgets import OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from tracer.view.cursor import ends_at_terminal
from tracer.view.diagnose import Diagnosis, DoctorWatch, Reaction, diagnose, plan, step_of
from tracer.view.finding_text import finding_text
from tracer.view.i18n import tr
from tracer.view.steps import StepIndex
from tracer.view.wrap import Wrapped


class FindingsPanel(OptionList):
    """The doctor's findings, one option each; Enter or a click jumps to the finding's step."""

    SCREEN_KEYS = [Binding("d", "toggle_findings", "findings", id="findings")]  # noqa: RUF012
    """Keys that work from any panel (the screen passes them on to the panel)."""
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("escape", "toggle_findings", "close", show=False, id="close-findings"),
        Binding("j", "cursor_down", "next finding", show=False, id="next-finding"),
        Binding("k", "cursor_up", "previous finding", show=False, id="previous-finding"),
        Binding("ctrl+e", "scroll_down", "scroll down", show=False, id="findings-scroll-down"),
        Binding("ctrl+y", "scroll_up", "scroll up", show=False, id="findings-scroll-up"),
    ]

    @dataclass
    class Selected(Message):
        """The reader chose a finding: go to its 0-based ``step``."""

        step: int

    @dataclass
    class Toggled(Message):
        """The panel was shown (and took the keys) or hidden."""

        shown: bool

    @dataclass
    class Diagnosed(Message):
        """The doctor is done with the trace: its findings, and what ``--doctor`` makes of them."""

        diagnosis: Diagnosis
        reaction: Reaction

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)

    def __init__(
        self, doctor: DoctorWatch | None = None, *, lang: str = "en", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.set_reactive(FindingsPanel.lang, lang)
        self.doctor = doctor or DoctorWatch(False, jump=False, following=False)
        """``--doctor``: whether to check even a huge trace, and report what was found."""
        self.steps: list[int] = []
        """The 0-based step of each option, in order (separators excluded)."""
        self._shown: tuple[Diagnosis | None, str, str] | None = None
        self.diagnosis: Diagnosis | None = None
        """The doctor's findings once known (None: not yet checked)."""
        self.state = ""
        """Why :attr:`diagnosis` is still None: "checking" (a thread is on it) or "waiting"
        (a huge trace, checked when the panel is first opened)."""
        self.index: StepIndex | None = None

    # -- running the doctor ----------------------------------------------------------------

    def check(self, index: StepIndex, known: Diagnosis | None = None) -> None:
        """Check the trace of ``index`` now, in the background, or (huge, not asked for)
        later; ``known``: its findings, already known."""
        self.workers.cancel_group(self, "doctor")  # work on another trace is no longer wanted
        self.doctor.forget()
        self.index, self.diagnosis, self.state = index, None, ""
        if known is not None:
            self._done(known)
            return
        if not hasattr(index.reader, "raw"):  # --follow waiting for the file: check it later
            return
        how = plan(_events(index.reader), self.doctor.asked)
        if how == "now":
            if not getattr(index.reader, "scanned_all", True):  # (before the indexing thread)
                index.reader.refresh()  # a short trace: the doctor reads all of it
            self._done(diagnose(index.reader))
        elif how == "background":
            self.state = "checking"
            self.call_after_refresh(self._in_background)  # after the first frame
        else:
            self.state = "waiting"

    def check_waiting(self) -> bool:
        """A huge trace left for later: check it now that it is wanted (False: nothing to do)."""
        if self.state != "waiting":
            return False
        self.state = "checking"
        self._in_background()
        return True

    def recheck(self, ended: bool) -> None:
        """Check again if a followed trace checked while it grew has ``ended`` since."""
        if self.index is None or self.state or not self.doctor.recheck(ended):
            return
        if plan(_events(self.index.reader), self.doctor.asked) == "now":
            self._done(diagnose(self.index.reader))
        else:
            self.state = "checking"
            self._in_background()

    @work(thread=True, exclusive=True, group="doctor")
    def _in_background(self) -> None:
        """Run the doctor with a reader of its own, so the screen's reader is never shared."""
        assert self.index is not None
        result = diagnose(self.index.reader.path)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._done, result)

    def _done(self, diagnosis: Diagnosis) -> None:
        self.diagnosis, self.state = diagnosis, ""
        saw_end = self.index is not None and ends_at_terminal(self.index)
        self.post_message(self.Diagnosed(diagnosis, self.doctor.done(diagnosis, saw_end=saw_end)))

    @on(Diagnosed)
    def _report(self, message: Diagnosed) -> None:
        """``--doctor``: say what was found (then the message goes on up to the screen)."""
        said, problem = message.reaction, message.diagnosis.problem
        if said.say is not None:
            words = tr(said.say, self.lang, problem=problem)
            self.notify(words, severity="warning" if said.warn else "information")
        if said.show:
            self.open()

    # -- showing the panel, moving in the list ---------------------------------------------

    def action_toggle_findings(self) -> None:
        """``d``: show the findings and take the keys (↑ ↓ choose, Enter jumps), or hide them."""
        self.toggle_class("shown")
        shown = self.has_class("shown")
        if shown:
            self.check_waiting()  # a huge trace: check it now that it is wanted
            self.focus()
        self.post_message(self.Toggled(shown))

    def open(self) -> None:
        """Show the findings and take the keys (``--doctor`` found something)."""
        self.add_class("shown")
        self.focus()

    def action_cursor_down(self) -> None:
        """↓ ``j``: the next finding; on the last one, scroll on so its end can be read."""
        if self.highlighted is not None and self.highlighted >= self.option_count - 1:
            self.scroll_down(animate=False)
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        """↑ ``k``: the previous finding; on the first one, scroll back to its top."""
        if self.highlighted is not None and self.highlighted <= 0:
            self.scroll_up(animate=False)
            return
        super().action_cursor_up()

    def action_first(self) -> None:
        """Home: the first finding, from its top."""
        super().action_first()
        self.call_after_refresh(self.scroll_home, animate=False)

    def action_last(self) -> None:
        """End: the last finding, to its end (a tall one is read from its bottom line)."""
        super().action_last()
        self.call_after_refresh(self.scroll_end, animate=False)

    def action_page_down(self) -> None:
        """PgDn: a page of findings on; on the last one, a page further into it."""
        if self.highlighted is not None and self.highlighted >= self.option_count - 1:
            self.scroll_page_down(animate=False)
            return
        super().action_page_down()

    def action_page_up(self) -> None:
        """PgUp: a page of findings back; on the first one, a page back towards its top."""
        if self.highlighted is not None and self.highlighted <= 0:
            self.scroll_page_up(animate=False)
            return
        super().action_page_up()

    # -- showing the findings --------------------------------------------------------------

    def watch_step(self) -> None:
        self.show(self.diagnosis, self.lang, self.state)

    def watch_lang(self) -> None:
        self.show(self.diagnosis, self.lang, self.state)

    def show(self, diagnosis: Diagnosis | None, lang: str, state: str = "") -> None:
        """Fill the list. ``diagnosis`` None: not checked yet (``state`` says why: "checking" or
        "waiting")."""
        shown = self._shown
        if shown is not None and shown[0] is diagnosis and shown[1:] == (lang, state):
            return
        self._shown = (diagnosis, lang, state)
        count = len(diagnosis.findings) if diagnosis is not None else 0
        count_text = (f"（{count}）" if lang == "zh" else f" ({count})") if count else ""
        self.border_title = tr("findings", lang) + count_text
        self.steps = []
        if diagnosis is None:
            self.set_options(
                [
                    Option(
                        Text(tr(f"doctor_{state or 'checking'}", lang), style="dim"), disabled=True
                    )
                ]
            )
            return
        if diagnosis.problem is not None:
            self.set_options(
                [
                    Option(
                        Text(tr("doctor_failed", lang, problem=diagnosis.problem), style="dim"),
                        disabled=True,
                    )
                ]
            )
            return
        if not diagnosis.findings:
            self.set_options([Option(Text(tr("no_findings", lang), style="dim"), disabled=True)])
            return
        options: list[Option | None] = []
        for finding in diagnosis.findings:
            if options:
                options.append(None)  # a rule between findings
            # Wrapped the Chinese way: "第2次请求" never loses 次 to the next line.
            row = Wrapped(finding_text(finding, lang))
            options.append(Option(row, id=f"finding-{len(self.steps)}"))
            self.steps.append(step_of(finding))
        self.set_options(options)
        self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option_id or ""
        if option_id.startswith("finding-"):
            self.post_message(self.Selected(self.steps[int(option_id.removeprefix("finding-"))]))


def _events(reader: object) -> int:
    """How many lines the trace has (reckoned while the reader has not found them all: the
    doctor must not run "now" on the first megabyte of a long trace)."""
    estimate = getattr(reader, "estimated_events", None)
    return int(estimate()) if estimate is not None else len(reader)  # type: ignore[arg-type]
