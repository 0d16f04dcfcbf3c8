"""The raw view (``r``): a step's records as pretty-printed JSON, and for a resending step the
request exactly as it was rebuilt for the API.

The step view explains; the raw view proves. It shows every record the trace wrote for the step
(the lines since the previous step, the step's own event last), decoded and re-encoded with an
indent, so what the reader copies with ``y`` is valid JSON. For a ``request`` event it adds the
body that was sent, rebuilt from the trace by :func:`tracer.trace.requests.rebuild_requests` (the
same code that proves the rebuild is byte-exact), ``messages`` and all.

Pure: no Textual, no ``anthropic``.
"""

from __future__ import annotations

from typing import Any

from tracer.trace.requests import rebuild_requests
from tracer.view.pretty_json import pretty_json
from tracer.view.steps import StepIndex

#: Record kinds a rebuilt request is made from.
_REQUEST_KINDS = ("message", "request")


def step_records(index: StepIndex, step: int) -> list[dict[str, Any]]:
    """The records written for ``step``: those after the previous step, up to its own event."""
    start = index.positions[step - 1] + 1 if step else 0
    reader = index.reader
    return [reader.dict_at(i) for i in range(start, index.positions[step] + 1)]


def request_body(index: StepIndex, step: int) -> dict[str, Any] | None:
    """The body of the request a resending step sent, rebuilt; None for any other step."""
    if index.stage(step) != "resending":
        return None
    reader, where = index.reader, index.positions[step]
    events = (reader[i] for i in range(where + 1) if reader.kind_of(i) in _REQUEST_KINDS)
    body = None
    for rebuilt in rebuild_requests(events):
        body = rebuilt.body
    return body


#: ``step_json``'s ``body`` when the caller has not rebuilt the request itself.
REBUILD: Any = object()


def step_json(index: StepIndex, step: int, body: Any = REBUILD) -> str:
    """The raw view of ``step``: valid, indented JSON.

    ``body``: the request a resending step sent, when the caller already rebuilt every request
    in one pass (the web page does: rebuilding each one from the start would cost the square of
    the trace); None leaves it out.
    """
    out: dict[str, Any] = {
        "step": step + 1,
        "stage": index.stage(step),
        "turn": index.turn(step),
        "records": step_records(index, step),
    }
    if body is REBUILD:
        body = request_body(index, step)
    if body is not None:
        out["request_body"] = body
    return pretty_json(out)
