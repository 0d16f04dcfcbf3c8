"""The building blocks of the OTLP export: attribute values, ids, and one builder per span kind.

:mod:`tracer.export.otlp.walker` walks the trace and calls these. Each builder returns a span in
its OTLP/JSON form (ids as hex, times as strings of nanoseconds), so the same dicts become the
``otlp-json`` file and, through ``opentelemetry-proto``, the protobuf a collector receives.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

try:  # compiled code: without its wheel every value takes the stdlib's way
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the platform
    _orjson = None  # type: ignore[assignment]  # (every use checks for None first)

from tracer.trace.events import STATIONS
from tracer.view.i18n_words import STAGE_NAMES

SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2
PROVIDER = "anthropic"


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list | tuple):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    return {"stringValue": v if isinstance(v, str) else to_json(v)}


def to_json(v: Any) -> str:
    """Compact JSON, non-ASCII kept, anything else JSON cannot hold written as its ``str``.

    orjson writes it where it can: an export of 10,000 turns is one 600 MB document, and the
    stdlib's encoder, which builds it from millions of small pieces, took over half the export
    and grew faster than the document. The two write the same values (a float may be spelled
    ``1e-6`` instead of ``1e-06``); what orjson refuses (an integer beyond 64 bits, a lone
    surrogate) takes the stdlib's way. Dataclasses and datetimes are handed to ``str``, as the
    stdlib does, not written orjson's own way."""
    if _orjson is not None:
        try:
            return _orjson.dumps(v, default=str, option=_AS_STDLIB).decode()
        except (TypeError, _orjson.JSONEncodeError):
            pass
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"), default=str)


def to_json_bytes(v: Any) -> bytes:
    """:func:`to_json` as UTF-8 bytes, for writing: orjson's bytes as they are, never decoded to
    text only to be encoded again."""
    if _orjson is not None:
        try:
            return _orjson.dumps(v, default=str, option=_AS_STDLIB)
        except (TypeError, _orjson.JSONEncodeError):
            pass
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"), default=str).encode()


_AS_STDLIB = (
    0 if _orjson is None else _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
)


def attrs(mapping: dict[str, Any] | None = None, **named: Any) -> list[dict[str, Any]]:
    """OTLP attributes from a dict (dotted keys) and keywords (``gen_ai__tool__name`` is
    ``gen_ai.tool.name``); ``None`` values are left out."""
    items = {**(mapping or {}), **{k.replace("__", "."): v for k, v in named.items()}}
    return [{"key": k, "value": _value(v)} for k, v in items.items() if v is not None]


class Ids:
    """Deterministic ids: hashes of the trace's identity (and a salt) and a span's role in it."""

    def __init__(self, header: dict[str, Any], salt: str = "") -> None:
        seed = to_json([header.get("created"), header.get("source"), salt])
        self.trace = hashlib.sha256(seed.encode()).hexdigest()[:32]

    def span(self, key: str) -> str:
        digest = hashlib.sha256(f"{self.trace}:{key}".encode()).hexdigest()[:16]
        return digest if digest.strip("0") else "0000000000000001"


def step_event(stage: str, at: int, **detail: Any) -> dict[str, Any]:
    """A span event for one of the four steps of the journey, named as the chapter names it.

    ``tracer.journey.step`` is its number (1–4): the book's three *stations* are the chapter's
    parts, while these four are the steps one result takes (翻译, 包装, 追加, 重新发送)."""
    number = STATIONS.index(stage) + 1
    zh = STAGE_NAMES[stage]["zh"]
    named = attrs(tracer__journey__step=number, tracer__journey__step__zh=zh, **detail)
    return {"timeUnixNano": at, "name": stage, "attributes": named}


def span(
    ids: Ids, key: str, parent: str | None, name: str, kind: int, start: int, end: int
) -> dict[str, Any]:
    """A span's skeleton; times stay integers until :func:`finish` writes them as OTLP wants."""
    out: dict[str, Any] = {"traceId": ids.trace, "spanId": ids.span(key)}
    if parent is not None:
        out["parentSpanId"] = parent
    out.update(name=name, kind=kind, startTimeUnixNano=start, endTimeUnixNano=max(start, end))
    out.update(attributes=[], events=[], status={})
    return out


def error(span_: dict[str, Any], kind: str, message: str) -> None:
    """Mark ``span_`` failed: ``error.type`` and status ERROR, as the conventions ask."""
    span_["attributes"] += attrs(error__type=kind)
    span_["status"] = {"code": STATUS_ERROR, "message": message[:500]}


_API_ERROR = re.compile(r"^\s*(\d{3})\s+([a-z_]+)\b")


def error_type(text: str | None, status: int | None) -> str:
    """``error.type`` for a failed request: the API's error type (``invalid_request_error``),
    else the HTTP status, else ``_OTHER`` as the conventions say when nothing names it."""
    if text and (m := _API_ERROR.match(text)):
        return m.group(2)
    if status:
        return str(status)
    if text and "timeout" in text.lower():
        return "timeout"
    return "_OTHER"


def output_messages(blocks: list[Any], finish: str) -> list[dict[str, Any]]:
    """A reply as GenAI ``gen_ai.output.messages``: one assistant message, its parts in order."""
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append({"type": "text", "content": block.get("text", "")})
        elif block.get("type") == "tool_use":
            parts.append(
                {
                    "type": "tool_call",
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "arguments": block.get("input"),
                }
            )
    return [{"role": "assistant", "parts": parts, "finish_reason": finish}]


def finish(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Times as strings of nanoseconds (OTLP/JSON's 64-bit integers), events included."""
    for s in spans:
        s["startTimeUnixNano"] = str(s["startTimeUnixNano"])
        s["endTimeUnixNano"] = str(s["endTimeUnixNano"])
        for e in s["events"]:
            e["timeUnixNano"] = str(e["timeUnixNano"])
    return spans


def fit(spans: list[dict[str, Any]], grow: set[str]) -> None:
    """Put every span inside its parent, parents first.

    Spans in ``grow`` (an agent span, a ``Task`` call's span that ran a subagent) have no times
    of their own worth keeping: they first grow to cover their children. Every other child is
    then clamped into its parent, since a trace's clocks can disagree (an imported tool span
    that starts before the request that asked for it): a backend draws a child outside its
    parent as a broken tree. Events are clamped into their span too.
    """
    by_id = {s["spanId"]: s for s in spans}
    children: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        if s.get("parentSpanId") in by_id:
            children.setdefault(s["parentSpanId"], []).append(s)

    def cover(s: dict[str, Any]) -> None:
        kids = children.get(s["spanId"], [])
        for kid in kids:
            cover(kid)
        if s["spanId"] in grow and kids:
            s["startTimeUnixNano"] = min(
                s["startTimeUnixNano"], *(k["startTimeUnixNano"] for k in kids)
            )
            s["endTimeUnixNano"] = max(s["endTimeUnixNano"], *(k["endTimeUnixNano"] for k in kids))

    def clamp(s: dict[str, Any], lo: int, hi: int) -> None:
        start = min(max(s["startTimeUnixNano"], lo), hi)
        s["startTimeUnixNano"] = start
        s["endTimeUnixNano"] = min(max(s["endTimeUnixNano"], start), hi)
        for e in s["events"]:
            e["timeUnixNano"] = min(max(e["timeUnixNano"], start), s["endTimeUnixNano"])
        for kid in children.get(s["spanId"], []):
            clamp(kid, start, s["endTimeUnixNano"])

    roots = [s for s in spans if s.get("parentSpanId") not in by_id]
    for root in roots:
        cover(root)
        clamp(root, root["startTimeUnixNano"], root["endTimeUnixNano"])
