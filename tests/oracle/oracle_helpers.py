"""The differential check: one bundled scenario played to tracer's loop and to the real Claude
Code 2.1.88, and what each sent, compared.

Both traces come from the same script, so the tool_use ids are the same and each result can be
matched to its call. What differs by nature is normalised away: the session's own folder (each
run has its own ``/tmp/tracer-…``), Claude Code's config folder, and the ``cache_control``
marker (a field of the request that 2.1.88 moves to the newest block every turn, listed once in
``chapters/ch12/differences.yaml``). What is left, each a short key, is a difference:

* ``NAME TOOL_USE_ID content`` / ``is_error`` / ``tag`` (``<tool_use_error>`` or not) /
  ``missing`` (one side sent no result for the call);
* ``NAME order N``: the blocks of the user message(s) new in request N, in a different order;
* ``NAME requests``: a different number of requests; ``NAME terminal``: a different ending.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

DIFFERENCES = ROOT / "chapters" / "ch12" / "differences.yaml"
_SESSION = re.compile(r"/tmp/tracer-[A-Za-z0-9_]+/workspace")
_CONFIG = re.compile(r"/tmp/tracer-[A-Za-z0-9_]+/claude-config[^\s\"'<>]*")
_TRACER_RESULTS = re.compile(r"/tmp/tracer-[A-Za-z0-9_]+/tool-results[^\s\"'<>]*")


def normal(value: Any) -> Any:
    """``value`` with each run's own folders replaced by names, and no cache marker."""
    if isinstance(value, str):
        value = _SESSION.sub("$WORKSPACE", value)
        value = _CONFIG.sub("$SAVED_OUTPUT", value)
        return _TRACER_RESULTS.sub("$SAVED_OUTPUT", value)
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items() if k != "cache_control"}
    return value


def _tagged(block: dict[str, Any]) -> bool:
    return "<tool_use_error>" in json.dumps(block.get("content"))


def _results(events: list[Any]) -> dict[str, dict[str, Any]]:
    return {e.tool_use_id: normal(e.block) for e in events if e.kind == "mapping"}


def _orders(events: list[Any]) -> list[list[str]]:
    """For each request, the blocks of the messages it added after the last assistant turn."""
    out = []
    for request in rebuild_requests(events):
        messages = request.body["messages"]
        tail = []
        for api in reversed(messages):
            if api.get("role") != "user":
                break
            content = api.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text"}]
            tail[:0] = [
                f"tool_result:{b.get('tool_use_id')}" if b.get("type") == "tool_result" else
                str(b.get("type"))
                for b in blocks
            ]  # fmt: skip
        out.append(tail)
    return out


def differences(name: str, ours: Path, theirs: Path) -> dict[str, tuple[Any, Any]]:
    """Every difference between tracer's trace ``ours`` and 2.1.88's ``theirs``, by key."""
    a, b = list(TraceReader(ours)), list(TraceReader(theirs))
    found: dict[str, tuple[Any, Any]] = {}
    ra, rb = _results(a), _results(b)
    for tid in sorted(set(ra) | set(rb)):
        x, y = ra.get(tid), rb.get(tid)
        if x is None or y is None:
            found[f"{name} {tid} missing"] = (x, y)
            continue
        if x.get("content") != y.get("content"):
            found[f"{name} {tid} content"] = (x.get("content"), y.get("content"))
        if bool(x.get("is_error")) != bool(y.get("is_error")):
            found[f"{name} {tid} is_error"] = (x.get("is_error"), y.get("is_error"))
        if _tagged(x) != _tagged(y):
            found[f"{name} {tid} tag"] = (_tagged(x), _tagged(y))
    oa, ob = _orders(a), _orders(b)
    if len(oa) != len(ob):
        found[f"{name} requests"] = (len(oa), len(ob))
    for n, (x, y) in enumerate(zip(oa, ob, strict=False), start=1):
        if x != y:
            found[f"{name} order {n}"] = (x, y)
    ta = next(e for e in reversed(a) if e.kind == "terminal")
    tb = next(e for e in reversed(b) if e.kind == "terminal")
    if ta.reason != tb.reason:
        found[f"{name} terminal"] = (ta.reason, tb.reason)
    return found


def varying() -> set[str]:
    """The cases of entries marked ``varies``: differences that show only on some runs (which of
    2.1.88's parallel calls finishes first), never called stale when a run does not show them."""
    doc = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8"))
    return {
        case
        for entry in doc["differences"]
        if entry.get("varies")
        for case in entry.get("cases", [])
    }


def listed() -> dict[str, str]:
    """Each listed case, and the id of the difference that explains it."""
    doc = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8"))
    return {case: entry["id"] for entry in doc["differences"] for case in entry.get("cases", [])}
