"""A trace read into the keys :mod:`tracer.compare.align` pairs: turn, stage and a digest per step.

The digest is what the step recorded (its records, as the raw view shows them,
:func:`tracer.view.raw.step_records`) with what differs between two runs of the same session
left out: the fields the trace's header lists as volatile (times, durations, timestamps, hashes
of bodies that quote a path), the sequence number (one step more earlier shifts every later
one), a message's ``uuid`` and ``message_id`` (new in every run; where a request names a
message by uuid, the uuid is written as its order of first appearance), and the run's temporary
folders (``paths`` in the header), written as ``<workspace>`` and ``<tool_results>``. Two runs
of a scenario that differ only by a fault therefore differ exactly where the fault is.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from tracer.compare.align import Key
from tracer.view.nesting import Nesting
from tracer.view.raw import step_records
from tracer.view.steps import StepIndex

#: Left out of every digest, whatever the header says: ``seq`` moves with any step before it,
#: and a message's ``uuid`` and the API's ``message_id`` are new in every run.
ALWAYS_VOLATILE = frozenset(
    {"seq", "t", "created", "timestamp", "duration_ms", "latency_ms", "uuid", "message_id"}
)
#: A message's uuid where a request names it (its parts list the messages it sends by uuid): new
#: in every run (a scripted run seeds them with the scenario's name), so each is written as its
#: order of first appearance in the trace, which two runs of one session share.
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _without(value: Any, volatile: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, volatile) for k, v in value.items() if k not in volatile}
    if isinstance(value, list):
        return [_without(v, volatile) for v in value]
    return value


def step_keys(index: StepIndex) -> list[Key]:
    """One :class:`Key` per step of ``index``; a subagent's steps count in the main loop's turn
    of the Task call that ran them."""
    header = index.reader.header if isinstance(index.reader.header, dict) else {}
    listed = header.get("volatile")
    volatile = ALWAYS_VOLATILE | frozenset(v for v in listed or () if isinstance(v, str))
    given = header.get("paths")
    paths = given if isinstance(given, dict) else {}
    places = sorted(
        ((str(p), f"<{name}>") for name, p in paths.items() if isinstance(p, str) and p),
        key=lambda pair: -len(pair[0]),  # a longer path first: one may hold another
    )
    nesting = Nesting(index)
    keys: list[Key] = []
    turn = 0
    seen: dict[str, str] = {}

    def number(match: re.Match[str]) -> str:
        return seen.setdefault(match.group(0), f"<uuid {len(seen) + 1}>")

    for step in range(len(index)):
        if not nesting.depth(step):
            turn = index.turn(step)
        records = _without(step_records(index, step), volatile)
        text = json.dumps(records, ensure_ascii=False, sort_keys=True, default=str)
        for path, name in places:
            text = text.replace(path, name)
        text = UUID.sub(number, text)
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()
        keys.append(Key(turn, index.stage(step), digest))
    return keys
