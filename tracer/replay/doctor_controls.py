"""The doctor's side of the replay app: run it once, mark the timeline, list and jump to findings.

:class:`DoctorControls` is mixed into :class:`~tracer.replay.app.ReplayApp`. When the app opens it
runs :func:`tracer.doctor.run_doctor` (through :mod:`tracer.replay.diagnose`, which decides when):
before the first frame on a small trace, in a background thread on a bigger one, with a reader of
its own so the screen's reader is never shared between threads. Its findings become markers on
the timeline and rows in the findings panel, which ``d`` shows and hides. Like the timeline and
the progress bar, the panel only says which step was chosen (a message up); the app moves.

Opened with ``doctor`` (``tracer replay --doctor``) the app opens the panel and goes to the first
finding, unless a step was asked for or the reader moved while the doctor was still at work; with
no findings it says so in a notification.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from tracer.replay.diagnose import Diagnosis, diagnose, plan
from tracer.replay.i18n import tr
from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.timeline import Timeline

if TYPE_CHECKING:
    from tracer.replay.steps import Cursor, StepIndex


class DoctorControls:
    """The findings: running the doctor, key ``d``, and jumping to a finding."""

    # State set by ReplayApp.__init__; the App methods used below (query_one, notify, go,
    # render_step, …) come from ReplayApp as well.
    index: StepIndex
    cursor: Cursor
    lang: str
    doctor: bool
    follow: bool
    diagnosis: Diagnosis | None
    doctor_state: str
    _jump_to_finding: bool
    _start_step: int
    _diagnosed_complete: bool
    _doctor_reported: bool

    def start_doctor(self) -> None:
        """Check the trace now, in the background, or (huge and not asked for) on demand."""
        if self.diagnosis is not None:
            self.diagnosed(self.diagnosis)
            return
        if not hasattr(self.index.reader, "raw"):  # --follow waiting for the file: check it later
            return
        how = plan(len(self.index.reader), self.doctor)
        if how == "now":
            self.diagnosed(diagnose(self.index.reader))
        elif how == "background":
            self.doctor_state = "checking"
            self.call_after_refresh(self.diagnose_in_background)  # after the first frame
        else:
            self.doctor_state = "waiting"

    @work(thread=True, exclusive=True, group="doctor")
    def diagnose_in_background(self) -> None:
        """Run the doctor with a reader of its own, so the screen's reader is never shared."""
        result = diagnose(self.index.reader.path)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self.diagnosed, result)

    def diagnosed(self, diagnosis: Diagnosis) -> None:
        """The doctor is done: mark the timeline, fill the panel, and (``--doctor``) jump."""
        self.diagnosis, self.doctor_state = diagnosis, ""
        self._diagnosed_complete = (
            bool(len(self.index)) and self.index.stage(len(self.index) - 1) == "terminal"
        )
        self.query_one(Timeline).set_marks(diagnosis.marks)
        # Opened with --doctor: say what it found (about a followed trace, once it has ended).
        if (
            self.doctor
            and not self._doctor_reported
            and (self._diagnosed_complete or not self.follow)
        ):
            self._doctor_reported = True
            first = diagnosis.first_step
            if diagnosis.problem is not None:
                self.notify(
                    tr("doctor_failed", self.lang, problem=diagnosis.problem), severity="warning"
                )
            elif first is None:
                self.notify(tr("no_findings", self.lang))
            else:
                panel = self.query_one(FindingsPanel)
                panel.add_class("shown")
                panel.focus()
                # Unless a step was asked for, or the reader moved while the doctor worked.
                if self._jump_to_finding and self.step == self._start_step:
                    self.cursor.go(first)
                    self.render_step()
                    # The step view first: bring the block the finding is about into view
                    # (once laid out, so the lines are wrapped to the real width).
                    self.call_after_refresh(self._show_block)
                    return
        self.render_step()

    def _show_block(self) -> None:
        stage = self.query_one("#stage")
        lines = stage.plain_lines()
        if len(lines) > stage.content_size.height:  # only when it does not all fit
            stage.toggle_mark("⇓")

    def _show_findings(self) -> None:
        self.query_one(FindingsPanel).show(self.diagnosis, self.lang, self.doctor_state)

    def action_findings(self) -> None:
        panel = self.query_one(FindingsPanel)
        panel.toggle_class("shown")
        if panel.has_class("shown"):
            if self.doctor_state == "waiting":  # a huge trace: check it now that it is wanted
                self.doctor_state = "checking"
                self.diagnose_in_background()
                self.render_step()
            panel.focus()  # ↑ ↓ choose a finding, Enter jumps to it
        else:
            self.query_one("#stage").focus()  # the step view has the keys again

    def on_findings_panel_selected(self, message: FindingsPanel.Selected) -> None:
        self.go(message.step)

    def _recheck_when_finished(self) -> None:
        """A followed trace was checked while it grew: check it again once it has ended."""
        if (
            self._diagnosed_complete
            or self.doctor_state
            or not len(self.index)
            or self.index.stage(len(self.index) - 1) != "terminal"
        ):
            return
        if plan(len(self.index.reader), self.doctor) == "now":
            self.diagnosed(diagnose(self.index.reader))
        else:
            self.doctor_state = "checking"
            self.diagnose_in_background()
