"""Wire against transcript, the last part: what the comparison says, and in which words.

:func:`tracer.doctor.against.compare_requests` returns a :class:`Comparison`: how many requests
each side has, the :class:`Difference` list (each a place where the rebuilt request is not what
was sent: its kind, its request numbered from 1 as the trace's ``request_index``, the message's
index in the wire request, or in the rebuild for a message only the rebuild has, and a sentence
in English and in Chinese), and the :class:`Unknowable` list: what the wire carried that a
transcript cannot hold, named with how much of it there was and never counted as a defect
(:func:`unknowable` turns the :class:`~.against_bodies.Tally` into those lines).
:data:`AGAINST_JSON_SCHEMA` is the JSON Schema of ``--json``'s object, which
:mod:`.against_command` prints. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracer.doctor.against_bodies import Tally

#: Names of the body keys the transcript cannot know, in both languages.
_KEY_NAMES = {
    "system": ("the system prompt", "系统提示词"),
    "tools": ("the tools list", "工具列表"),
}

_TEXT = {"type": "string"}
_INDEX = {"type": ["integer", "null"], "minimum": 0}

#: The JSON Schema of ``tracer doctor TRACE --against WIRE_TRACE --json``.
AGAINST_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["trace", "against", "wire_requests", "rebuilt_requests", "unknowable",
                 "differences"],
    "additionalProperties": False,
    "properties": {
        "trace": _TEXT,
        "against": _TEXT,
        "wire_requests": {"type": "integer", "minimum": 0},
        "rebuilt_requests": {"type": "integer", "minimum": 0},
        "unknowable": {"type": "array", "items": {
            "type": "object",
            "required": ["what", "count", "message", "message_zh"],
            "additionalProperties": False,
            "properties": {
                "what": {"enum": ["system", "tools", "params", "reminders", "cache_control",
                                  "earlier"]},
                "count": {"type": "integer", "minimum": 1},
                "message": _TEXT,
                "message_zh": _TEXT,
            },
        }},
        "differences": {"type": "array", "items": {
            "type": "object",
            "required": ["kind", "request", "message_index", "rebuilt_index", "block_index",
                         "message", "message_zh"],
            "additionalProperties": False,
            "properties": {
                "kind": {"enum": ["missing-request", "extra-request", "param-differs",
                                  "missing-message", "extra-message", "message-moved",
                                  "role-differs", "block-order", "missing-block", "extra-block",
                                  "block-differs"]},
                "request": {"type": "integer", "minimum": 1},
                "message_index": _INDEX,
                "rebuilt_index": _INDEX,
                "block_index": _INDEX,
                "message": _TEXT,
                "message_zh": _TEXT,
            },
        }},
    },
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Unknowable:
    """Something the wire carried that a transcript cannot hold, and how often it was seen."""

    what: str  # "system", "tools", "params", "reminders", "cache_control", "earlier"
    count: int
    message: str
    message_zh: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "count": self.count,
            "message": self.message,
            "message_zh": self.message_zh,
        }


@dataclass(frozen=True, slots=True)
class Difference:
    """One place where the rebuilt request is not what was sent."""

    kind: str
    request: int
    message_index: int | None  # in the wire request, as sent
    rebuilt_index: int | None  # in the rebuilt request
    block_index: int | None
    message: str
    message_zh: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "request": self.request,
            "message_index": self.message_index,
            "rebuilt_index": self.rebuilt_index,
            "block_index": self.block_index,
            "message": self.message,
            "message_zh": self.message_zh,
        }


@dataclass
class Comparison:
    """Two sides' requests compared: every difference, and what only the wire could carry."""

    wire_requests: int
    rebuilt_requests: int
    differences: list[Difference] = field(default_factory=list)
    unknowable: list[Unknowable] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "wire_requests": self.wire_requests,
            "rebuilt_requests": self.rebuilt_requests,
            "unknowable": [u.to_dict() for u in self.unknowable],
            "differences": [d.to_dict() for d in self.differences],
        }


def difference(
    kind: str, req: int, w: int | None, r: int | None, b: int | None, en: str, zh: str
) -> Difference:
    """A difference, its text led by where it is (the wire's message index, else the rebuild's)."""
    index = w if w is not None else r
    where_en = f"request {req}" + (f", message {index}" if index is not None else "")
    where_zh = f"第{req}次请求" + (f"的第{index}条消息" if index is not None else "")
    return Difference(kind, req, w, r, b, f"{where_en}: {en}", f"{where_zh}：{zh}")


def unknowable(tally: Tally) -> list[Unknowable]:
    """What the tally counted, each named once: the system prompt and the tools list, the other
    parameters together, the reminders, the markers."""
    named: list[Unknowable] = []
    for key in ("system", "tools"):
        if key in tally.keys:
            en, zh = _KEY_NAMES[key]
            n = tally.keys[key]
            named.append(Unknowable(key, n, f"{en}, in {n} requests", f"{zh}，共{n}次请求"))
    others = sorted(k for k in tally.keys if k not in _KEY_NAMES)
    if others:
        n = max(tally.keys[k] for k in others)
        named.append(
            Unknowable("params", n,
                       f"the other request parameters ({', '.join(others)}), in {n} requests",
                       f"请求的其他参数（{'、'.join(others)}），共{n}次请求")
        )  # fmt: skip
    if tally.reminders:
        n = tally.reminders
        named.append(
            Unknowable("reminders", n, f"{n} <system-reminder> texts Claude Code injected",
                       f"Claude Code插入的<system-reminder>文本{n}段")
        )  # fmt: skip
    if tally.markers:
        n = tally.markers
        named.append(
            Unknowable("cache_control", n, f"{n} cache_control markers",
                       f"cache_control标记{n}个")
        )  # fmt: skip
    return named
