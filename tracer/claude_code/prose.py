"""Claude Code's own prose out of a recording, kept as its size and hash: ``--strip-prose``.

A recording of the real Claude Code holds, besides what the session did, text Claude Code
wrote: its system prompt, its tools' descriptions (and their parameters' descriptions) and the
``<system-reminder>`` blocks it adds to user messages and to some tool results. That text is
Anthropic's, not ours, so the recordings tracer bundles keep each piece only as
``[Claude Code's text: N bytes, sha256 H]``: enough to see where it was, how big, and whether
two sessions sent the same one, never the words. A user's own recording keeps everything
(``--strip-prose`` is asked for, never the default).

Stripping changes the request bodies, so each ``request`` event's ``bytes`` and ``sha256`` are
computed again from the stripped trace: it still rebuilds every request byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from tracer.trace.events import AnyEvent, Event, Header, from_dict
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests
from tracer.trace.writer import TraceWriter

_REMINDER = re.compile(r"<system-reminder>(.*?)</system-reminder>", re.S)
#: How a stripped piece reads; the test of the bundled recordings looks for nothing else.
MARK = "[Claude Code's text: {size} bytes, sha256 {digest}]"
_MARKED = re.compile(r"^\[Claude Code's text: \d+ bytes, sha256 [0-9a-f]{64}\]$")


def mark(text: str) -> str:
    data = text.encode("utf-8")
    return MARK.format(size=len(data), digest=hashlib.sha256(data).hexdigest())


def is_marked(text: str) -> bool:
    return bool(_MARKED.match(text))


def strip_reminders(value: Any) -> Any:
    """Every ``<system-reminder>`` in the strings of ``value``, its text replaced by its mark."""
    if isinstance(value, str):
        if "<system-reminder>" not in value:
            return value
        return _REMINDER.sub(
            lambda m: f"<system-reminder>{mark(m.group(1))}</system-reminder>", value
        )
    if isinstance(value, list):
        return [strip_reminders(v) for v in value]
    if isinstance(value, dict):
        return {k: strip_reminders(v) for k, v in value.items()}
    return value


def strip_params(params: dict[str, Any]) -> dict[str, Any]:
    """A request's ``system`` text and its tools' descriptions, marked."""
    out = dict(params)
    system = out.get("system")
    if isinstance(system, str):
        out["system"] = mark(system)
    elif isinstance(system, list):
        out["system"] = [
            {**b, "text": mark(b["text"])} if isinstance(b, dict) and "text" in b else b
            for b in system
        ]
    if isinstance(out.get("tools"), list):
        out["tools"] = [_descriptions(t) for t in out["tools"]]
    return out


def _descriptions(value: Any) -> Any:
    if isinstance(value, list):
        return [_descriptions(v) for v in value]
    if isinstance(value, dict):
        return {
            k: mark(v) if k == "description" and isinstance(v, str) else _descriptions(v)
            for k, v in value.items()
        }
    return value


def _event(data: dict[str, Any]) -> dict[str, Any]:
    data = strip_reminders(data)
    for key in ("params", "request_params"):
        if isinstance(data.get(key), dict):
            data[key] = strip_params(data[key])
    return data


def _known(event: AnyEvent) -> Event:
    """An event of a trace this tracer has just written, so of a kind it knows."""
    assert isinstance(event, Event), f"{event.kind}: a kind tracer does not know"
    return event


def strip_trace(path: Path) -> None:
    """Strip the trace at ``path`` in place (written whole, then put in its place)."""
    reader = TraceReader(path)
    header = reader.header
    events = [_known(from_dict(_event(_known(e).to_dict()))) for e in reader]
    sizes = {
        id(r.event): (len(body := r.encode()), hashlib.sha256(body).hexdigest())
        for r in rebuild_requests(events)
    }
    source = strip_reminders(header["source"])
    source["prose"] = "Claude Code's own text kept as its size and sha256 (--strip-prose)"
    with TraceWriter(
        path,
        Header(
            created=header["created"],
            source=source,
            tracer_version=header["tracer_version"],
            paths=header.get("paths"),
        ),
        keep_time=True,
        flush=False,
        atomic=True,
    ) as writer:
        for event in events:
            if id(event) in sizes:
                size, digest = sizes[id(event)]
                data = event.to_dict()
                data["bytes"], data["sha256"] = size, digest
                event = _known(from_dict(data))
            writer.write(event)


def strip_lines(path: Path) -> None:
    """Strip the reminders of a JSON-lines file (Claude Code's transcript) in place."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            lines.append(json.dumps(strip_reminders(json.loads(line)), ensure_ascii=False))
        except ValueError:
            lines.append(strip_reminders(line))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
