"""The readers' checks, asked of each line as it is written: does the trace open everywhere?

``tracer validate`` (:mod:`tracer.trace.schema`) reads a finished file and asks three things of
every line: the schema and the shapes every view relies on (:func:`~tracer.trace.shapes.
event_problems`, what the reader asks before it decodes an event), the pointers a message makes
to an earlier ``mapping`` or ``tool_run``, and the references across events (everything an event
names was written before it, :class:`~tracer.trace.references.References`). A file that passes
opens in ``show``, ``doctor``, the replay and every export.

An importer writes someone else's log, so it cannot simply trust that it wrote such a file: a
field of a shape nobody foresaw (a result with no content at all) once made a trace the importer
called fine and every reader refused. :class:`LineCheck` asks the same questions while the lines
are written, of the objects the writer is about to encode (no second reading and parsing of the
file): the writer hands it each event and its JSON object (:class:`~tracer.trace.writer.
TraceWriter`'s ``check``), and :attr:`LineCheck.problems` says, by line, what the readers would
refuse.
"""

from __future__ import annotations

from tracer.trace.event_schema import checks, quick_checks
from tracer.trace.events import STEP_KINDS, Event, MessageRecorded
from tracer.trace.references import References
from tracer.trace.shapes import INNER_KINDS as _INNER_KINDS
from tracer.trace.shapes import event_problems, header_problem, inner_problems

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The kinds that name other events (:class:`~tracer.trace.references.References` follows them).
_REFERRING = frozenset({"message", "request", "response", "wrapping", "appending"})

#: Problems kept word for word; the count goes on.
MAX_PROBLEMS = 20


_UNSEEN: Any = object()


def _plan(kind: str) -> tuple[Any, bool, bool, bool] | None:
    """A kind's quick test, and whether it has inner shapes, names other events, is a step;
    ``None`` for a kind this version does not know (or the header's, never an event)."""
    if kind == "header":
        return None
    try:
        sound = quick_checks()[kind]
    except KeyError:
        return None
    return (sound, kind in _INNER_KINDS, kind in _REFERRING, kind in STEP_KINDS)


class LineCheck:
    """Fed the header, then each event in file order; :attr:`problems` holds what is wrong."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.count = 0
        self._kinds: list[str] = []
        self._blocks: dict[int, bool] = {}
        """The seq of each ``mapping`` written (a message may point at its block)."""
        # Per kind, once: its quick test, and whether it has inner shapes, names other events,
        # is a step (one dict look-up per line instead of four).
        self._plans: dict[str, tuple[Any, bool, bool, bool] | None] = {}
        self._references = References()
        self._steps = 0

    def _problem(self, line: int, text: str) -> None:
        self.count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"line {line}: {text}")

    def header(self, data: dict[str, Any]) -> None:
        for text in checks()["header"](data, ""):
            self._problem(1, f"header: {text}")
        if problem := header_problem(data):
            self._problem(1, problem)

    def line(self, event: Event, data: dict[str, Any]) -> None:
        """Check one event (``data`` is its JSON object, as it will be written).

        This runs for every line an import writes, so the common case is written out: the
        schema's quick test and the inner shapes of the few kinds that hold any, then the
        references of the kinds that make any; only a line in doubt is worded, by the reader's
        own :func:`~tracer.trace.shapes.event_problems`."""
        kinds = self._kinds
        kind = data["kind"]
        kinds.append(kind)
        plan = self._plans.get(kind, _UNSEEN)
        if plan is _UNSEEN:
            plan = self._plans[kind] = _plan(kind)
        if (
            plan is None or not plan[0](data) or (plan[1] and bool(inner_problems(kind, data)))
        ) and (problem := event_problems(data)):
            self._problem(len(kinds) + 1, problem)
            return
        if plan is None:
            return  # a kind this version does not know, sound as far as a reader asks
        if plan[3]:
            self._steps += 1
        if kind == "mapping":
            self._blocks[len(kinds)] = True
        elif plan[2]:
            first = kind == "message" and self._pointers(event, len(kinds) + 1)  # type: ignore[arg-type]
            if problem := self._references.problem(event, first):
                self._problem(len(kinds) + 1, problem)

    __call__ = line

    def _pointers(self, message: MessageRecorded, line: int) -> bool:
        """Whether the message's first block is a ``mapping``'s, as the reader puts it back:
        its pointers must point back, at a ``mapping`` for the block and at a ``tool_run`` for
        the raw output."""
        pointers = ((message.block_seq, "mapping"), (message.tool_use_result_seq, "tool_run"))
        for seq, kind in pointers:
            if seq and not (1 <= seq < message.seq and self._kinds[seq - 1] == kind):
                self._problem(line, f"message points at seq {seq}, which is not an earlier {kind}")
        return bool(message.block_seq) and message.block_seq in self._blocks

    def finish(self) -> list[str]:
        """Every problem found (the first :data:`MAX_PROBLEMS` of them), once all is written."""
        if not self._steps and not self.count:
            self._problem(1, "no steps: the trace holds no step of the loop")
        return self.problems
