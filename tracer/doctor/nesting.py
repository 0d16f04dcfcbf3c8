"""Checking nested loops one by one: a subagent's run is a loop of its own.

An imported trace can hold a subagent's whole loop inside one ``Task`` call of the main loop,
between a ``subagent_start`` and its ``subagent_end`` (:class:`~tracer.trace.events.
SubagentStarted`). Read flat, its requests would sit between the Task call and the next main
request, and its ending would look like the main loop's. So the doctor splits the events into
loops (the main loop without its nested runs, then each run without the runs nested in it), runs
every rule on each as if it were a trace of its own, and puts the findings back on the step
numbers ``tracer show`` gives the whole trace.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tracer.doctor.finding import Finding
from tracer.trace.events import STEP_KINDS


@dataclass
class LoopEvents:
    """The events of one loop: their positions in the whole trace, and who runs it."""

    indexes: list[int]
    loop: str | None = None
    """None for the main loop; else the nested loop's id."""
    tool_use_id: str | None = None


def split_loops(events: list[Any]) -> list[LoopEvents]:
    """The main loop first, then each nested loop (a run left open, as in a live file, too)."""
    stack = [LoopEvents([])]
    done: list[LoopEvents] = []
    for i, event in enumerate(events):
        kind = getattr(event, "kind", None)
        if kind == "subagent_start":
            stack.append(LoopEvents([], event.loop, event.tool_use_id))
        elif kind == "subagent_end" and len(stack) > 1:
            done.append(stack.pop())
        else:
            stack[-1].indexes.append(i)
    while len(stack) > 1:
        done.append(stack.pop())
    return [stack[0], *done]


def check_each_loop(
    events: list[Any], check: Callable[[list[Any]], list[Finding]]
) -> list[Finding]:
    """Run ``check`` on every loop; findings carry the whole trace's step numbers."""
    loops = split_loops(events)
    if len(loops) == 1:
        return check(events)
    global_step: list[int] = []
    step = 0
    for event in events:
        step += getattr(event, "kind", None) in STEP_KINDS
        global_step.append(step)
    findings: list[Finding] = []
    for part in loops:
        steps = [
            global_step[i] for i in part.indexes if getattr(events[i], "kind", None) in STEP_KINDS
        ]
        first = global_step[part.indexes[0]] if part.indexes else 0
        for f in check([events[i] for i in part.indexes]):
            where = steps[f.step - 1] if 1 <= f.step <= len(steps) else first
            who = "the subagent" if part.loop == part.tool_use_id else f"subagent {part.loop}"
            text = (
                f.message
                if part.loop is None
                else (f"in {who} run by {part.tool_use_id}: {f.message}")
            )
            findings.append(dataclasses.replace(f, step=where, message=text))
    return findings
