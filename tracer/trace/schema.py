"""``tracer validate``: a trace checked line by line against the event schema, and then some.

The schema itself and its validator live in :mod:`tracer.trace.event_schema`, below the reader
(the reader checks every event it decodes with them). This module sits above the reader: it reads
the file the way every other command does, so a trace that validates opens everywhere. Keeping the
two apart is what keeps the imports one-way (reader → shapes → event_schema; schema → reader).
"""

from __future__ import annotations

from pathlib import Path

from tracer.errors import UserError
from tracer.trace.event_schema import checks
from tracer.trace.reader import TraceReader
from tracer.trace.references import References

__all__ = [
    "validate_trace",
]


#: ``validate`` stops after this many problems: a file of three million broken lines says so in
#: a hundred lines and a second or two, not three million lines and minutes.
MAX_PROBLEMS = 100


def validate_trace(
    path: str | Path, max_problems: int = MAX_PROBLEMS
) -> tuple[int, list[str], list[str]]:
    """Check every line; return (events checked, problems as ``file:line: …``, notes).

    Each line is checked against the schema, then decoded exactly as every other command decodes
    it (shapes, ``seq`` order, pointers), and what each event names is checked to exist
    (:mod:`~tracer.trace.references`), so a trace that validates opens everywhere. After
    ``max_problems`` problems it stops; the last problem then says how many lines were left
    unchecked ("and N more lines not checked").
    """
    compiled = checks()
    reader = TraceReader(path)
    problems = [f"{path}:1: header: {p}" for p in compiled["header"](reader.header, "")]
    notes: list[str] = []
    unknown: dict[str, int] = {}
    references = References()
    steps = 0
    total = len(reader)
    for i in range(total):
        if len(problems) >= max_problems:
            del problems[max_problems:]
            left = total - i
            problems.append(
                f"{path}: stopped after {max_problems} problems, and {left} more line(s) not "
                "checked"
            )
            return total, problems, notes
        line = reader.line_number(i)
        try:
            data = reader.dict_at(i)
        except UserError as exc:
            problems.append(str(exc))
            continue
        kind = data.get("kind") if isinstance(data, dict) else None
        kind = kind if isinstance(kind, str) else None
        if kind not in compiled or kind == "header":
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1
        else:
            found = [f"{path}:{line}: {kind}: {p}" for p in compiled[kind](data, "")]
            if found:
                problems += found
                continue
        try:
            event = reader[i]
        except UserError as exc:
            problems.append(str(exc))
            continue
        steps += reader.is_step(i)
        if problem := references.problem(event):
            problems.append(f"{path}:{line}: {problem}")
    if not steps and not problems:
        problems.append(f"{path}: no steps: the recorder stopped before the session started")
    for kind, count in unknown.items():
        notes.append(f"skipped {count} event(s) of unknown kind '{kind}'")
    if notice := reader.torn_notice():
        notes.append(notice)
    if notice := reader.incomplete_notice():
        notes.append(notice)
    return len(reader), problems, notes
