"""The doctor: the chapter's table of common errors, checked automatically on a trace.

Chapter 12 ends with a table (常见错误与检查方法): the result never reached the model, a
``tool_use_id`` mismatch, a malformed result, a loop that never ends, max turns exceeded. The
doctor turns each row into a rule and runs them all on a trace, recorded or imported, adding the
API's own rules about a conversation (``api-invariants``)::

    from tracer.doctor import run_doctor
    for finding in run_doctor(TraceReader("session.trace.jsonl")):
        print(finding.step, finding.rule, finding.message)

Rules run from the most specific to the most general, and a general rule stays quiet about what
a specific one already explained, so one fault gives one finding. This package imports neither
``anthropic`` nor Textual: the replay calls it to put markers on its timeline.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tracer.doctor.facts import TraceFacts
from tracer.doctor.finding import FINDINGS_JSON_SCHEMA, RULES, Finding
from tracer.doctor.invariants import check_api_invariants
from tracer.doctor.loop import check_loop_not_ending, check_max_turns
from tracer.doctor.malformed import check_malformed_result
from tracer.doctor.nesting import check_each_loop
from tracer.doctor.results import check_result_not_returned, check_tool_use_id_mismatch

DEFAULT_REPEAT_LIMIT = 3


def run_doctor(reader_or_events: Any, *, repeat_limit: int = DEFAULT_REPEAT_LIMIT) -> list[Finding]:
    """Check a trace (a :class:`~tracer.trace.reader.TraceReader` or a list of events).

    Returns the findings in step order. Raises :class:`~tracer.errors.UserError` when a request
    refers to messages the trace does not hold.
    """
    if repeat_limit < 2:
        raise ValueError("repeat_limit must be at least 2")
    path = getattr(reader_or_events, "path", None)
    where = Path(path) if path is not None else None
    events: list[Any] = list(reader_or_events)
    # A subagent's nested loop is checked as a loop of its own (tracer.doctor.nesting).
    findings = check_each_loop(events, lambda part: _check(part, where, repeat_limit))
    order = list(RULES)
    return sorted(findings, key=lambda f: (f.step, order.index(f.rule)))


def _check(events: Iterable[Any], path: Path | None, repeat_limit: int) -> list[Finding]:
    facts = TraceFacts.build(events, path)
    findings: list[Finding] = []
    findings += check_malformed_result(facts)
    findings += check_tool_use_id_mismatch(facts)
    findings += check_result_not_returned(facts)
    loop = check_loop_not_ending(facts, repeat_limit)
    findings += loop
    findings += check_max_turns(facts, loop)
    findings += check_api_invariants(facts)
    return findings


__all__ = ["DEFAULT_REPEAT_LIMIT", "FINDINGS_JSON_SCHEMA", "RULES", "Finding", "run_doctor"]
