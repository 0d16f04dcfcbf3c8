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

from tracer.trace.event_code import event_plan
from tracer.trace.event_schema import _MISSING, checks, quick_checks, schema_if_changed
from tracer.trace.events import STEP_KINDS, Event, MessageRecorded
from tracer.trace.references import References
from tracer.trace.shapes import INNER_CHECKS, event_problems, header_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    #: A kind's quick test (``None``: a kind this version does not know), its inner shapes'
    #: check and what follows its references (each ``None`` when it has none).
    _Plan = tuple[Any, Any, Any]

#: Problems kept word for word; the count goes on.
MAX_PROBLEMS = 20


def _builder(cls: type) -> Any:
    """``cls``'s ``checked_dict``, or ``None`` when its objects are built by its own
    ``to_dict`` (a kind the schema does not know, a class whose ``to_dict`` is not the written
    one)."""
    plan = event_plan(cls) if "to_dict" in vars(cls) else None
    if plan is None or plan[0] not in checks():
        return None
    return checked_for(cls.__name__, plan, schema_if_changed(plan[0]))


def checked_for(
    name: str, plan: tuple[Any, ...], schema: dict[str, Any] | None
) -> Callable[[Any], tuple[dict[str, Any], bool]]:
    """The ``checked_dict`` of the event class ``name``: compiled ahead of time when it was
    written from this plan and from the kind's schema, else compiled now
    (:mod:`tracer.trace.checked_code`, loaded only then). ``schema`` is the kind's schema as
    ``schema.json`` has it, or ``None`` when the file is the very one
    :mod:`tracer.trace.event_sound` was written from (then nothing is parsed)."""
    from tracer.trace import event_sound

    kind, ahead = plan[0], event_sound.CHECKED.get(name) == plan
    if not ahead or schema is not None:
        from tracer.trace.checked_code import compile_checked
        from tracer.trace.sound_code import written_from

        if not (ahead and written_from().get(kind) == schema):
            return compile_checked(plan, written_from()[kind] if schema is None else schema, name)
    function = getattr(event_sound, f"make_checked_{name}")(_MISSING)
    function.__qualname__ = f"{name}.checked_dict"
    return function


class LineCheck:
    """Fed the header, then each event in file order; :attr:`problems` holds what is wrong."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.count = 0
        self._kinds: list[str] = []
        self._blocks: dict[int, bool] = {}
        """The seq of each ``mapping`` written (a message may point at its block)."""
        # Per kind, once: its quick test, its inner shapes' check, what follows its references
        # (one dict look-up a line, then only the calls that kind needs).
        self._plans: dict[str, _Plan] = {}
        self._references = References()
        self._classes: dict[type, tuple[Any, str, Any, Any]] = {}
        """Per event class, what :meth:`object_of` asks of it (:meth:`_class_plan`)."""

    def _plan(self, kind: str) -> _Plan:
        """What :meth:`line` asks of a kind's lines (see :data:`_Plan`)."""
        try:
            sound = quick_checks()[kind] if kind != "header" else None
        except KeyError:
            sound = None
        if sound is None:
            return (None, None, None)
        refer: Any
        if kind == "message":
            refer = self._message
        elif kind == "mapping":
            refer = self._mapping
        else:
            refer = self._references.for_kind(kind)
        return (sound, INNER_CHECKS.get(kind), refer)

    def _problem(self, line: int, text: str) -> None:
        self.count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"line {line}: {text}")

    def header(self, data: dict[str, Any]) -> None:
        for text in checks()["header"](data, ""):
            self._problem(1, f"header: {text}")
        if problem := header_problem(data):
            self._problem(1, problem)

    def object_of(self, event: Event) -> dict[str, Any]:
        """The event's JSON object, as ``to_dict`` makes it, checked as :meth:`line` checks it.

        The writer of an import asks this for every line: the object is built by the class's
        ``checked_dict`` (:func:`checked_for`), which answers the
        schema's quick test of each value as it puts it in, rather than looking every key up
        again in the finished object (that test was a sixteenth of an import). The rest is
        :meth:`line`, written out: what a class needs is looked up once, by class."""
        try:
            build, kind, inner, refer = self._classes[type(event)]
        except KeyError:
            build, kind, inner, refer = self._classes[type(event)] = self._class_plan(event)
        if build is None:
            data = event.to_dict()
            self.line(event, data)
            return data
        data, sound = build(event)
        kinds = self._kinds
        kinds.append(kind)
        if (
            (not sound or (inner is not None and inner(data))) and (problem := event_problems(data))
        ) or (refer is not None and (problem := refer(event))):
            self._problem(len(kinds) + 1, problem)
        return data

    def _class_plan(self, event: Event) -> tuple[Any, str, Any, Any]:
        """What :meth:`object_of` needs of ``event``'s class: its ``checked_dict`` (``None``:
        built by ``to_dict`` and handed to :meth:`line`), its kind and its kind's plan."""
        build = _builder(type(event))
        if build is None:
            return (None, "", None, None)
        kind = type(event).kind
        if kind not in self._plans:
            self._plans[kind] = self._plan(kind)
        _, inner, refer = self._plans[kind]
        return (build, kind, inner, refer)

    def line(self, event: Event, data: dict[str, Any]) -> None:
        """Check one event (``data`` is its JSON object, as it will be written).

        This runs for every line an import writes, so the common case is written out: the
        schema's quick test and the inner shapes of the few kinds that hold any, then the
        references of the kinds that make any; only a line in doubt is worded, by the reader's
        own :func:`~tracer.trace.shapes.event_problems`."""
        kinds = self._kinds
        kind = data["kind"]
        kinds.append(kind)
        try:
            quick, inner, refer = self._plans[kind]
        except KeyError:
            quick, inner, refer = self._plans[kind] = self._plan(kind)
        if (quick is None or not quick(data) or (inner is not None and inner(data))) and (
            problem := event_problems(data)
        ):
            self._problem(len(kinds) + 1, problem)
            return
        if refer is not None and (problem := refer(event)):
            self._problem(len(kinds) + 1, problem)

    __call__ = line

    def _mapping(self, event: Event) -> None:
        self._blocks[len(self._kinds)] = True  # its seq: the line before it is the header
        return None

    def _message(self, message: MessageRecorded) -> str | None:
        """Whether the message's first block is a ``mapping``'s, as the reader puts it back:
        its pointers must point back, at a ``mapping`` for the block and at a ``tool_run`` for
        the raw output."""
        block_seq, raw_seq = message.block_seq, message.tool_use_result_seq
        first = False
        if block_seq or raw_seq:
            line = len(self._kinds) + 1
            for seq, kind in ((block_seq, "mapping"), (raw_seq, "tool_run")):
                if seq and not (1 <= seq < message.seq and self._kinds[seq - 1] == kind):
                    self._problem(
                        line, f"message points at seq {seq}, which is not an earlier {kind}"
                    )
            first = bool(block_seq) and block_seq in self._blocks
        self._references.message(message, first)
        return None

    def finish(self) -> list[str]:
        """Every problem found (the first :data:`MAX_PROBLEMS` of them), once all is written."""
        # Counted here, not as lines go by: a trace with a problem has one to say already.
        if not self.count and not any(kind in STEP_KINDS for kind in self._kinds):
            self._problem(1, "no steps: the trace holds no step of the loop")
        return self.problems
