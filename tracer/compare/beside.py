"""Two runs side by side in the terminal (``tracer replay A --beside [B]``): the pure part.

The comparison's rows come from :mod:`tracer.compare.align` (the same rows the web page's
comparison shows): each row is a step of A, of B, or of both, paired by turn and step of the
journey, and marked ``same``, ``changed``, ``only_a`` or ``only_b``. :class:`Comparison` holds the
cursor over those rows and every move the screen's keys make (one row, the next or previous
difference, the next doctor finding, the first and last row); :func:`summary_text` writes the
summary of the differences the screen opens on, in the comparison's words (both languages:
:mod:`tracer.compare.beside_words`).

Nothing here imports Textual: :mod:`tracer.replay.beside_screen` draws what this decides. It
mirrors no Claude Code file: Claude Code has no comparison of two sessions; the chapter's common
errors are best seen beside the run that works.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.text import Text

from tracer.compare.align import Row, Summary, summarize
from tracer.compare.beside_words import turn_name, word
from tracer.view.diagnose import step_of
from tracer.view.i18n import severity_mark, severity_name, stage_title

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.doctor.finding import Finding

#: The summary lists this many differences by row (and says how many there are in all).
LISTED = 40


@dataclass(frozen=True, slots=True)
class RowFinding:
    """A doctor's finding in one run, and the comparison's row its step is on."""

    finding: Finding
    row: int
    side: int
    """0: A's, 1: B's."""


@dataclass
class Comparison:
    """The rows of two aligned runs and the cursor over them (0-based ``row``)."""

    rows: Sequence[Row]
    names: tuple[str, str] = ("A", "B")
    findings: list[RowFinding] = field(default_factory=list)
    row: int = 0
    pending: set[int] = field(default_factory=set)
    """The sides (0: A, 1: B) the doctor is still checking, in the background."""
    summary: Summary = field(init=False)

    def __post_init__(self) -> None:
        self.summary = summarize(self.rows)

    @classmethod
    def of(
        cls,
        rows: Sequence[Row],
        names: tuple[str, str],
        findings: Sequence[Finding] = (),
        findings_b: Sequence[Finding] = (),
    ) -> Comparison:
        """The comparison, with the doctor's ``findings`` in A and ``findings_b`` in B (each with
        its 1-based ``step``) placed on their rows."""
        comparison = cls(rows, names)
        comparison.place(0, findings)
        comparison.place(1, findings_b)
        return comparison

    def place(self, side: int, findings: Sequence[Finding]) -> None:
        """Put the doctor's ``findings`` in ``side`` (0: A, 1: B) on their rows; that side is
        no longer pending."""
        steps = (row.a if side == 0 else row.b for row in self.rows)
        where = {step: n for n, step in enumerate(steps) if step is not None}
        placed = [RowFinding(f, where[step_of(f)], side) for f in findings if step_of(f) in where]
        self.findings = sorted([*self.findings, *placed], key=lambda f: (f.row, f.side))
        self.pending.discard(side)

    @property
    def current(self) -> Row:
        return self.rows[self.row]

    def go(self, row: int) -> bool:
        """Move to ``row`` (kept inside the rows); whether the cursor moved."""
        row = max(0, min(row, len(self.rows) - 1))
        moved = row != self.row
        self.row = row
        return moved

    def step(self, delta: int) -> bool:
        return self.go(self.row + delta)

    def next_difference(self, forward: bool = True, *, here: bool = False) -> bool:
        """To the next (or previous) row that is not the same in both runs; False: none.
        ``here``: the row under the cursor counts (leaving the summary for the first one)."""
        rows, at = self.summary.differences, self.row - 1 if here else self.row
        found = [r for r in rows if r > at] if forward else [r for r in rows if r < self.row]
        if not found:
            return False
        self.go(found[0] if forward else found[-1])
        return True

    def next_finding(self, *, here: bool = False) -> bool:
        """To the row of the doctor's next finding (in either run) after this row, round to the
        first (staying put on the only one); False: none. ``here``: one on this row counts."""
        if not self.findings:
            return False
        at = self.row - 1 if here else self.row
        later = [f.row for f in self.findings if f.row > at]
        self.go(later[0] if later else self.findings[0].row)
        return True

    def next_turn(self, forward: bool = True) -> bool:
        """To the first row of the next turn; back: of this turn, or of the previous one when
        already there (``]`` and ``[``, as in the replay). False: the cursor did not move."""
        if forward:
            turn = self.current.turn
            later = (n for n in range(self.row + 1, len(self.rows)) if self.rows[n].turn != turn)
            return self.go(next(later, self.row))
        start = self._turn_start(self.row)
        if start == self.row and start:
            start = self._turn_start(start - 1)
        return self.go(start)

    def _turn_start(self, row: int) -> int:
        while row and self.rows[row - 1].turn == self.rows[row].turn:
            row -= 1
        return row

    def next_stage(self, stage: str) -> bool:
        """To the next row of ``stage`` after the cursor, round to the first (keys 1–4: the four
        steps of the journey); False: neither run has one."""
        found = [n for n, row in enumerate(self.rows) if row.stage == stage]
        if not found:
            return False
        later = [n for n in found if n > self.row]
        self.go(later[0] if later else found[0])
        return True

    def findings_here(self) -> list[RowFinding]:
        return [f for f in self.findings if f.row == self.row]

    def lit(self) -> tuple[bool, bool]:
        """Whether each side's title is lit: the side that has what the other lacks, or both
        when they differ."""
        change = self.current.change
        return (change in ("changed", "only_a"), change in ("changed", "only_b"))

    def position(self, lang: str) -> str:
        """Where the cursor is: turn, stage, row and how the two sides compare."""
        row = self.current
        return word(
            "position",
            lang,
            turn=turn_name(row.turn, lang),
            stage=stage_title(row.stage, lang),
            row=self.row + 1,
            total=len(self.rows),
            change=word(row.change, lang),
        )


def summary_text(comparison: Comparison, lang: str) -> Text:
    """The summary the comparison opens on: the two runs and how many rows differ, then each
    run's doctor findings by row (a fault's point, kept where the first screen shows it), the
    differences by row, and how to go on."""
    summary = comparison.summary
    out = Text()
    out.append(word("title", lang) + "\n", style="bold")
    for key, name in zip(("side_a", "side_b"), comparison.names, strict=True):
        out.append(word(key, lang, name=name) + "\n", style="#e8d44d")
    out.append("\n")
    if summary.identical:
        out.append(word("identical", lang) + "\n")
    else:
        counts = word(
            "counts",
            lang,
            same=summary.same,
            changed=summary.changed,
            only_a=summary.only_a,
            only_b=summary.only_b,
        )
        out.append(counts + "\n")
    _findings(out, comparison, lang)
    if comparison.pending:
        out.append("\n" + word("doctor_checking", lang) + "\n", style="italic")
    if not summary.identical:
        _differences(out, comparison, lang)
    out.append("\n" + word("start", lang), style="italic")
    return out


def _findings(out: Text, comparison: Comparison, lang: str) -> None:
    for side in (0, 1):
        placed_here = [f for f in comparison.findings if f.side == side]
        if not placed_here:
            continue
        out.append("\n" + word("findings_b" if side else "findings_a", lang) + "\n", style="bold")
        for placed in placed_here:
            finding = placed.finding
            mark = f"  {severity_mark(finding.severity)} {severity_name(finding.severity, lang)} "
            out.append(mark, style="bold #ff5f5f" if finding.severity == "error" else "bold")
            out.append(word("row", lang, row=placed.row + 1), style="bold")
            out.append(f"  {finding.rule}" + ("：" if lang == "zh" else ": "))
            out.append(finding.text(lang) + "\n")


def _differences(out: Text, comparison: Comparison, lang: str) -> None:
    differences, rows = comparison.summary.differences, comparison.rows
    out.append("\n" + word("differences", lang) + "\n", style="bold")
    listed = differences[:LISTED]
    width = cell_len(word("row", lang, row=listed[-1] + 1))  # the row numbers in a column
    for number in listed:
        row = rows[number]
        label = word("row", lang, row=number + 1)
        out.append("  " + label + " " * (width - cell_len(label)), style="bold")
        place = f"{turn_name(row.turn, lang)} · {stage_title(row.stage, lang)}"
        out.append(f"  {place} · ")
        out.append(word(row.change, lang) + "\n", style="bold #ff8c69")
    if len(differences) > LISTED:
        more = word("more", lang, n=len(differences), listed=LISTED)
        out.append(f"  {more}\n")
