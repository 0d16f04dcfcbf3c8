"""The timeline: every turn, with the current turn opened to show its steps.

A 10,000-turn trace has 100,000 steps, far too many rows to build on every keypress, so the
timeline draws only the rows that fit: a window of turn headings around the current turn, whose
steps are listed in full. Clicking a row posts :class:`Timeline.Selected` with its step.

The doctor's findings show as markers (:meth:`Timeline.set_marks`): ``●`` for an error and ``▲``
for a warning, on the step itself and on the heading of a closed turn that holds one, so a
problem further along is visible before the reader gets there.

Focused (Tab), the timeline is a list: ↑ ↓ move one step, PgUp PgDn ten, Home End to the first
and last step; each posts :class:`Timeline.Selected` and the app moves, as for a click. With a
filter (key ``f`` after a search, :meth:`Timeline.toggle_filter`) it lists only the matching
steps, and keeps to the hits of each new search until the search is put out.

The timeline is bound to the screen's cursor, language and open trace (attributes down,
``data_bind``): it redraws itself when the cursor or the language moves, and starts afresh on
another trace.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip
from textual.widget import Widget

from tracer.replay.widgets.pager import text_strip
from tracer.trace.events import STATIONS
from tracer.view.diagnose import rank
from tracer.view.finding_text import SEVERITY_STYLE
from tracer.view.i18n import severity_mark, stage_name, tr
from tracer.view.state import ReplayState
from tracer.view.steps import StepIndex


@dataclass
class _Row:
    step: int
    heading: bool


class Timeline(Widget):
    """Turns and steps; the current step marked."""

    can_focus = True
    BINDINGS = [  # noqa: RUF012 (Textual's own convention)
        Binding("up,k", "move(-1)", "previous step", show=False, id="timeline-up"),
        Binding("down,j", "move(1)", "next step", show=False, id="timeline-down"),
        Binding("pageup,ctrl+b", "move(-10)", "ten steps back", show=False, id="timeline-page-up"),
        Binding("pagedown,ctrl+f", "move(10)", "ten steps on", show=False, id="timeline-page-down"),
        Binding("home", "move(-1000000000)", "first step", show=False, id="timeline-first"),
        Binding("end", "move(1000000000)", "last step", show=False, id="timeline-last"),
    ]

    @dataclass
    class Selected(Message):
        """The reader chose a row (a key, a click): go to its 0-based ``step``."""

        step: int

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)

    def __init__(self, index: StepIndex, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self._rows: list[_Row] = []
        self._rows_key: tuple[int, int, int] | None = None
        self.marks: dict[int, str] = {}
        """0-based step → severity of the doctor's worst finding there."""
        self._group_marks: dict[int, str] = {}
        self._group_marks_key: int | None = None
        self.only: list[int] | None = None
        """With a filter: the only steps listed (ascending)."""
        self.filtering = False
        """Whether the reader asked for only the search's hits (``f``)."""

    def reset(self, index: StepIndex) -> None:
        """Another trace was opened: list its steps, with no filter and no marks."""
        self.index, self._rows_key = index, None  # the row cache belongs to the old one
        self.filtering = False
        self.set_filter(None)
        self.set_marks({})

    def watch_state(self, old: ReplayState | None, new: ReplayState | None) -> None:
        if new is not None and old is not None and new is not old:
            self.reset(new.index)

    def watch_step(self, old: int, new: int) -> None:
        self.draw(old, self.lang)

    def watch_lang(self, old: str, new: str) -> None:
        self.draw(self.step, old)

    def draw(self, old_step: int, old_lang: str) -> None:
        """The cursor moved from ``old_step``, or the language changed from ``old_lang``."""
        if not len(self.index):
            return
        step, lang, old_rows = self.step, self.lang, self._rows
        rows = self._current_rows()
        if rows == old_rows and lang == old_lang and self.content_size.height:
            # Same rows, the marker moved: repaint just the two lines that changed.
            changed = [
                n for n, r in enumerate(rows) if not r.heading and r.step in (old_step, step)
            ]
            width = self.content_size.width
            self.refresh(*(Region(0, n, width, 1) for n in changed))
            return
        self.refresh()

    def set_filter(self, steps: list[int] | None) -> None:
        """List only ``steps`` (None: every step again)."""
        self.only = steps
        self._rows_key = None
        self.refresh()

    def toggle_filter(self, matches: list[int]) -> bool:
        """``f``: list only ``matches`` (the search's hits), or every step again. True: filtered."""
        self.filtering = not self.filtering and bool(matches)
        self.set_filter(matches if self.filtering else None)
        return self.filtering

    def filter_hits(self, matches: list[int]) -> None:
        """A new search finished: a filtered timeline lists its hits instead."""
        if self.filtering:
            self.set_filter(matches or None)

    def unfilter(self) -> None:
        """The search is gone: list every step again (if only its hits were listed)."""
        if self.filtering:
            self.filtering = False
            self.set_filter(None)

    def action_move(self, delta: int) -> None:
        if not len(self.index):
            return
        if self.only:  # filtered: move between the listed steps, stopping at either end
            at = bisect_left(self.only, self.step)
            at = max(
                0,
                min(at + delta if self.step in self.only or delta < 0 else at, len(self.only) - 1),
            )
            self.post_message(self.Selected(self.only[at]))
            return
        self.post_message(self.Selected(max(0, min(self.step + delta, len(self.index) - 1))))

    def set_marks(self, marks: dict[int, str]) -> None:
        """Show the doctor's findings (step → severity); redraws once."""
        if marks != self.marks:
            self.marks = dict(marks)
            self._group_marks_key = None
            self.refresh()

    def _group_mark(self, group: int) -> str | None:
        """The worst severity among a turn group's steps (cached until the index grows)."""
        key = self.index.group_count  # set_marks clears the key, so new marks recount too
        if key != self._group_marks_key:
            self._group_marks_key = key
            found: dict[int, str] = {}
            for step, severity in self.marks.items():
                if step < len(self.index):
                    g = self.index.group_of(step)
                    if g not in found or rank(severity) < rank(found[g]):
                        found[g] = severity
            self._group_marks = found
        return self._group_marks.get(group)

    def _current_rows(self) -> list[_Row]:
        """The rows for the current step and size (recomputed only when either changed)."""
        key = (self.step, self.content_size.height, len(self.index))
        if key != self._rows_key:
            self._rows_key = key
            height = self.content_size.height
            self._rows = self._filtered(height) if self.only is not None else self._layout(height)
        return self._rows

    def _heading(self, group: int) -> str:
        if group == 0 and self.index.turn(self.index.group_starts[0]) == 0:
            return tr("setup", self.lang)
        index = self.index
        turn = index.turn(index.group_starts[group])
        depth = index.group_depth(group)
        if depth:  # a subagent's own loop, indented under the turn that called it
            key = "subagent_turn" if turn else "subagent_setup"
            return " " * (depth - 1) + tr(key, self.lang, turn=turn)
        if group > 1 and index.group_depth(group - 1) and index.turn(index.group_starts[group]):
            # Back from a subagent: the rest of the turn that called it.
            return tr("turn_resumed", self.lang, turn=turn)
        return tr("turn", self.lang, turn=turn)

    def _layout(self, height: int) -> list[_Row]:
        index = self.index
        if not len(index):
            return []
        group = index.group_of(self.step)
        steps = index.group_range(group)
        height = max(height, 1)
        # Turn headings before and after the open turn share what the steps leave.
        spare = max(height - len(steps) - 1, 0)
        before_groups = min(group, spare // 2 if group + 1 < index.group_count else spare)
        after_groups = min(index.group_count - group - 1, spare - before_groups)
        before_groups = min(group, spare - after_groups)
        rows = [_Row(index.group_starts[g], True) for g in range(group - before_groups, group)]
        rows.append(_Row(steps.start, True))
        rows.extend(_Row(s, False) for s in steps)
        rows.extend(
            _Row(index.group_starts[g], True) for g in range(group + 1, group + 1 + after_groups)
        )
        if len(rows) > height:  # a turn with more steps than fit: keep the current one in view
            mark = next(i for i, r in enumerate(rows) if not r.heading and r.step == self.step)
            start = max(0, min(mark - height // 2, len(rows) - height))
            rows = rows[start : start + height]
        return rows

    def _filtered(self, height: int) -> list[_Row]:
        """A window of the matching steps around the current one."""
        only = [s for s in self.only or [] if s < len(self.index)]
        height = max(height, 1)
        at = bisect_left(only, self.step)
        start = max(0, min(at - height // 2, len(only) - height))
        return [_Row(s, False) for s in only[start : start + height]]

    def render_line(self, y: int) -> Strip:
        """Row ``y`` (Textual's line API, so a moved marker repaints two lines, not all)."""
        width = max(self.content_size.width, 1)
        base = self.rich_style
        rows = self._current_rows()
        if y >= len(rows):
            return Strip.blank(width, base)
        line = self._row_text(rows[y])
        line.truncate(width, overflow="ellipsis")
        return text_strip(line, width, base, self.app.console)

    def _row_text(self, row: _Row) -> Text:
        if row.heading:
            group = self.index.group_of(row.step)
            opened = group == self.index.group_of(self.step)
            heading = Text(
                ("▾ " if opened else "▸ ") + self._heading(group), style="bold" if opened else "dim"
            )
            severity = None if opened else self._group_mark(group)
            if severity is not None:
                heading.append(
                    " " + severity_mark(severity), style=SEVERITY_STYLE.get(severity, "bold")
                )
            return heading
        stage = self.index.stage(row.step)
        current = row.step == self.step
        marker = "▶" if current else " "
        number = STATIONS.index(stage) + 1 if stage in STATIONS else None
        badge = "①②③④"[number - 1] if number else " "
        line = Text(style="bold black on #e8d44d" if current else "")
        severity = self.marks.get(row.step)
        if severity is not None:
            line.append(severity_mark(severity), style=SEVERITY_STYLE.get(severity, "bold"))
        else:
            line.append(" ")
        line.append(f"{marker}{badge} {row.step + 1:>3} {stage_name(stage, self.lang)}")
        return line

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)  # inside the border
        if offset is not None and 0 <= offset.y < len(self._rows):
            self.post_message(self.Selected(self._rows[offset.y].step))
