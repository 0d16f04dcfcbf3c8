"""The doctor inside the replay: when to run it, where its findings sit, and what it says.

``tracer doctor`` checks a whole trace against the chapter's table of common errors
(:func:`tracer.doctor.run_doctor`). The replay runs it once when it opens, so each finding can be
a marker on the timeline and a row in the findings panel (key ``d``). This module is the pure
part of that: no Textual, only step numbers.

The doctor reads every event of the trace, so its cost grows with the trace while the replay's
first frame must not. :func:`plan` decides by the number of events the reader indexed at open:
a small trace is checked before the first frame (a few milliseconds), a bigger one in a
background thread after it, and a huge one only when the reader asked for it (``--doctor``).

The doctor numbers steps from 1, as ``tracer show`` does (0 means "before the first step"); the
replay's cursor counts from 0. :func:`step_of` is the one place that converts.

With ``--doctor`` the replay promises to say what the doctor found, once, and to start at the
first finding unless the reader has moved meanwhile; :class:`DoctorWatch` keeps that promise
and gives the screen a :class:`Reaction` to carry out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tracer.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the doctor and the reader are imported when it runs
    from tracer.doctor.finding import Finding
    from tracer.trace.reader import TraceReader

#: Up to this many events the doctor runs before the first frame.
NOW_LIMIT = 5_000
#: Up to this many events it runs by itself in the background; beyond, only with ``--doctor``.
AUTO_LIMIT = 20_000

Plan = Literal["now", "background", "skip"]

#: Worse first: a step holding both an error and a warning is marked as an error.
SEVERITY_ORDER = ("error", "warning")


@dataclass(frozen=True)
class Diagnosis:
    """What the doctor said about a trace, ready for the screen."""

    findings: tuple[Finding, ...] = ()
    """:class:`tracer.doctor.Finding` objects, in step order."""
    problem: str | None = None
    """Why the doctor could not check the trace (then there are no findings)."""
    marks: dict[int, str] = field(default_factory=dict)
    """0-based step → the worst severity found there."""

    @property
    def first_step(self) -> int | None:
        """The 0-based step of the first finding, or None when there is none."""
        return step_of(self.findings[0]) if self.findings else None


@dataclass(frozen=True)
class Reaction:
    """What the replay does once the doctor is done (nothing, by default)."""

    say: str | None = None
    """A word of :data:`tracer.view.i18n.TEXT` to notify ("doctor_failed", "no_findings")."""
    warn: bool = False
    """Notify it as a warning."""
    show: bool = False
    """Open the findings panel and give it the keys."""
    jump: int | None = None
    """Go to this 0-based step (the first finding), unless the reader has moved meanwhile."""


class DoctorWatch:
    """``--doctor``'s promise for the open trace: report once, and jump to the first finding.

    A followed trace is reported on once it has ended (checked again then, :meth:`recheck`).
    """

    def __init__(self, asked: bool, *, jump: bool, following: bool) -> None:
        self.asked = asked
        """``--doctor``: report what was found (and check even a huge trace)."""
        self.jump = jump
        """Go to the first finding (not when the command line asked for a step)."""
        self.following = following
        self.reported = False
        self.saw_end = False
        """Whether the last check saw the session's end (a followed trace may not have yet)."""

    def forget(self) -> None:
        """Another trace was opened: its findings are reported afresh."""
        self.reported = self.saw_end = False

    def done(self, diagnosis: Diagnosis, *, saw_end: bool) -> Reaction:
        """The reaction to ``diagnosis``; ``saw_end``: the trace's end was read when checked."""
        self.saw_end = saw_end
        if not self.asked or self.reported or (self.following and not saw_end):
            return Reaction()
        self.reported = True
        if diagnosis.problem is not None:
            return Reaction(say="doctor_failed", warn=True)
        first = diagnosis.first_step
        if first is None:
            return Reaction(say="no_findings")
        return Reaction(show=True, jump=first if self.jump else None)

    def recheck(self, ended: bool) -> bool:
        """Whether to check again: the trace was checked while it grew, and has ended since."""
        return ended and not self.saw_end


def plan(events: int, requested: bool) -> Plan:
    """When to run the doctor on a trace of ``events`` lines (``requested``: ``--doctor``)."""
    if events <= NOW_LIMIT:
        return "now"
    if events <= AUTO_LIMIT or requested:
        return "background"
    return "skip"


def step_of(finding: Finding) -> int:
    """The replay's 0-based step for a finding (the doctor's step 0, "before the first step",
    shows at the first one)."""
    return max(int(finding.step) - 1, 0)


def marks_of(findings: tuple[Finding, ...]) -> dict[int, str]:
    """Each step with a finding → its worst severity."""
    marks: dict[int, str] = {}
    for finding in findings:
        step = step_of(finding)
        old = marks.get(step)
        if old is None or rank(finding.severity) < rank(old):
            marks[step] = finding.severity
    return marks


def rank(severity: str) -> int:
    """0 for the worst severity; unknown ones sort last."""
    return SEVERITY_ORDER.index(severity) if severity in SEVERITY_ORDER else len(SEVERITY_ORDER)


def diagnose(reader_or_path: TraceReader | Path | str) -> Diagnosis:
    """Run the doctor on a reader (or open ``path`` with a reader of its own, for a thread).

    A trace the doctor cannot follow (a request naming a message the trace lacks) is not fatal
    for the replay: the reader can still step through it, so the reason is kept as ``problem``.
    """
    try:
        from tracer.doctor import run_doctor
    except ImportError:  # a trimmed install without the doctor: the replay works without it
        return Diagnosis(problem="the doctor is not installed")
    from tracer.trace.reader import TraceReader

    own = isinstance(reader_or_path, (str, Path))
    try:
        reader = (
            TraceReader(reader_or_path)
            if isinstance(reader_or_path, (str, Path))  # (own, as the type checker reads it)
            else reader_or_path
        )
        try:
            findings = tuple(run_doctor(reader))
        finally:
            if own:
                reader.close()
    except UserError as exc:
        return Diagnosis(problem=str(exc))
    return Diagnosis(findings, None, marks_of(findings))
