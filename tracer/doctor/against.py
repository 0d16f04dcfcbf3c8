"""Wire against transcript: the requests an import rebuilt, held against the ones really sent.

Claude Code does not log its requests; ``tracer import claude-code`` rebuilds them from the
transcript (``src/utils/sessionStorage.ts`` writes it) the way ``normalizeMessagesForAPI`` in
``src/utils/messages.ts`` turns the history into a request. ``tracer record --claude-code``
captures what 2.1.88 really sent. Given both for one session, :func:`compare_requests` says,
message by message, where the rebuild and the wire part.

Some of what crossed the wire is never written to the transcript, so no import can know it; it
is *named*, with how much of it there was, and not counted as a defect:

* the system prompt, the tools list and the request's other parameters (``max_tokens``,
  ``thinking``, ``metadata``...), body keys the rebuilt request does not have;
* the ``<system-reminder>`` text Claude Code injects (the skills list, the date, Read's note),
  on both sides taken out of the text it sits in; a block left empty goes, and so does a
  message left empty;
* the ``cache_control`` markers, which move to the newest message at each request.

Everything else is a :class:`Difference`, with its request (numbered from 1, as the trace's
``request_index``) and the message's index in the wire request as sent (or, for a message only
the rebuild has, its index there): a request or message missing or extra, a message moved, a
block missing, extra, different, or the blocks of a message in another order (a request only
the rebuild has is numbered as rebuilt). Requests are paired by the ids of their answers when
both sides have them, else in order; the requests of a resumed session's first run, before the
wire's first, are named (``earlier``). Messages are aligned by their content (``difflib``), so
one missing message is one finding, not a cascade. Pure: bodies in, findings out, no I/O.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

#: A reminder Claude Code injects, with the blank lines around it.
_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)

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

    what: str  # "system", "tools", "params", "reminders", "cache_control"
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


@dataclass
class _Tally:
    reminders: int = 0
    markers: int = 0
    keys: dict[str, int] = field(default_factory=dict)


def _strip_text(text: str) -> tuple[str, int]:
    stripped, n = _REMINDER.subn("\n", text)
    return (stripped.strip("\n") if n else text), n


def _block(block: Any, tally: _Tally | None) -> dict[str, Any] | None:
    """A block without its marker and reminders; ``None`` when nothing else was in it."""
    if not isinstance(block, dict):
        return {"unreadable": block}
    out = {k: v for k, v in block.items() if k != "cache_control"}
    removed = 0
    if out.get("type") == "text" and isinstance(out.get("text"), str):
        out["text"], removed = _strip_text(out["text"])
        if removed and not out["text"]:
            out = {}
    elif out.get("type") == "tool_result":
        content = out.get("content")
        if isinstance(content, str):
            out["content"], removed = _strip_text(content)
        elif isinstance(content, list):
            inner = [_block(b, None) for b in content]
            removed = sum(b is None for b in inner)
            out["content"] = [b for b in inner if b is not None]
    if tally is not None:
        tally.reminders += removed
        tally.markers += "cache_control" in block
    return out or None


def _messages(body: dict[str, Any], tally: _Tally | None) -> list[tuple[int, dict[str, Any]]]:
    """The messages as compared, each with its index in the request as sent."""
    out = []
    for index, message in enumerate(body.get("messages") or []):
        if not isinstance(message, dict):
            out.append((index, {"unreadable": message}))
            continue
        content = message.get("content")
        if isinstance(content, str):  # the API's shorthand for one text block
            content = [{"type": "text", "text": content}]
        blocks = [_block(b, tally) for b in content] if isinstance(content, list) else [content]
        kept = [b for b in blocks if b is not None]
        if kept or not blocks:
            out.append((index, {"role": message.get("role"), "content": kept}))
    return out


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _preview(value: Any, width: int = 70) -> str:
    text = _key(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _previews(sent: Any, built: Any, width: int = 70) -> tuple[str, str]:
    """Both sides, from a little before the first character where they part."""
    a, b = _key(sent), _key(built)
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    start = max(0, at - 20)

    def cut(text: str) -> str:
        shown = ("…" if start else "") + text[start:]
        return shown if len(shown) <= width else shown[: width - 1] + "…"

    return cut(a), cut(b)


def _diff(
    kind: str, req: int, w: int | None, r: int | None, b: int | None, en: str, zh: str
) -> Difference:
    """A difference, its text led by where it is (the wire's message index, else the rebuild's)."""
    index = w if w is not None else r
    where_en = f"request {req}" + (f", message {index}" if index is not None else "")
    where_zh = f"第{req}次请求" + (f"的第{index}条消息" if index is not None else "")
    return Difference(kind, req, w, r, b, f"{where_en}: {en}", f"{where_zh}：{zh}")


def _blocks(
    req: int, w: int, r: int, wire: dict[str, Any], rebuilt: dict[str, Any]
) -> list[Difference]:
    """Where two paired messages differ, block by block."""
    if wire.get("role") != rebuilt.get("role"):
        return [
            _diff("role-differs", req, w, r, None,
                  f"sent as {wire.get('role')}, rebuilt as {rebuilt.get('role')}",
                  f"发出的是{wire.get('role')}，重建的是{rebuilt.get('role')}")
        ]  # fmt: skip
    sent, built = wire["content"], rebuilt["content"]
    sent_keys, built_keys = [_key(b) for b in sent], [_key(b) for b in built]
    if sorted(sent_keys) == sorted(built_keys):
        return [
            _diff("block-order", req, w, r, None,
                  "the same blocks in another order",
                  "块相同，顺序不同")
        ]  # fmt: skip
    found: list[Difference] = []
    matcher = difflib.SequenceMatcher(None, built_keys, sent_keys, autojunk=False)
    for op, b1, b2, s1, s2 in matcher.get_opcodes():
        pairs = min(b2 - b1, s2 - s1) if op == "replace" else 0
        for k in range(pairs):
            was, now = _previews(sent[s1 + k], built[b1 + k])
            found.append(
                _diff("block-differs", req, w, r, s1 + k,
                      f"block {s1 + k} differs: sent {was}, rebuilt {now}",
                      f"第{s1 + k}个块不同：发出的是{was}，重建的是{now}")
            )  # fmt: skip
        if op in ("replace", "insert"):
            for s in range(s1 + pairs, s2):
                found.append(
                    _diff("missing-block", req, w, r, s,
                          f"block {s} was sent but is not rebuilt: {_preview(sent[s])}",
                          f"第{s}个块发出了，重建里没有：{_preview(sent[s])}")
                )  # fmt: skip
        if op in ("replace", "delete"):
            for b in range(b1 + pairs, b2):
                found.append(
                    _diff("extra-block", req, w, r, b,
                          f"rebuilt block {b} was not sent: {_preview(built[b])}",
                          f"重建的第{b}个块并没有发出：{_preview(built[b])}")
                )  # fmt: skip
    return found


def _request(
    req: int, wire: dict[str, Any], rebuilt: dict[str, Any], tally: _Tally
) -> list[Difference]:
    for key in wire:
        if key != "messages" and key not in rebuilt:
            tally.keys[key] = tally.keys.get(key, 0) + 1
    found = []
    for key in wire:
        if key != "messages" and key in rebuilt and wire[key] != rebuilt[key]:
            was, now = _previews(wire[key], rebuilt[key])
            found.append(
                _diff("param-differs", req, None, None, None,
                      f"{key} was {was}, rebuilt {now}", f"{key}发出的是{was}，重建的是{now}")
            )  # fmt: skip
    sent, built = _messages(wire, tally), _messages(rebuilt, None)
    sent_keys, built_keys = [_key(m) for _, m in sent], [_key(m) for _, m in built]
    missing: list[int] = []  # positions in sent
    extra: list[int] = []  # positions in built
    matcher = difflib.SequenceMatcher(None, built_keys, sent_keys, autojunk=False)
    for op, b1, b2, s1, s2 in matcher.get_opcodes():
        pairs = min(b2 - b1, s2 - s1) if op == "replace" else 0
        for k in range(pairs):
            (w, wm), (r, rm) = sent[s1 + k], built[b1 + k]
            found += _blocks(req, w, r, wm, rm)
        missing += range(s1 + pairs, s2) if op in ("replace", "insert") else []
        extra += range(b1 + pairs, b2) if op in ("replace", "delete") else []
    for s in missing:
        w = sent[s][0]
        moved = next((b for b in extra if built_keys[b] == sent_keys[s]), None)
        if moved is not None:
            extra.remove(moved)
            found.append(
                _diff("message-moved", req, w, built[moved][0], None,
                      f"rebuilt at index {built[moved][0]}, out of order",
                      f"重建时排在第{built[moved][0]}条，顺序不对")
            )  # fmt: skip
        else:
            found.append(
                _diff("missing-message", req, w, None, None,
                      f"sent but not rebuilt: {_preview(sent[s][1])}",
                      f"发出了，重建里没有：{_preview(sent[s][1])}")
            )  # fmt: skip
    for b in extra:
        found.append(
            _diff("extra-message", req, None, built[b][0], None,
                  f"rebuilt but never sent: {_preview(built[b][1])}",
                  f"重建了，却没有发出：{_preview(built[b][1])}")
        )  # fmt: skip
    return found


def _pairs(
    n_rebuilt: int, n_wire: int, rebuilt_answers: list[Any] | None, wire_answers: list[Any] | None
) -> tuple[list[tuple[int, int | None]], list[int], int]:
    """Which rebuilt request each wire request is paired with (``None``: none), the rebuilt
    requests paired with none, and how many of those came before the first pair.

    By the id of the message that answered each request when both sides have them all (the
    API never gives two answers one id): a resumed session's transcript holds the requests of
    the first run too, which this run's wire never carried. Else in order."""
    ids = wire_answers or []
    known = rebuilt_answers is not None and len(ids) == n_wire and None not in ids
    if not known or len(set(ids)) != len(ids):
        pairs: list[tuple[int, int | None]] = [
            (i, i if i < n_rebuilt else None) for i in range(n_wire)
        ]
        return pairs, list(range(n_wire, n_rebuilt)), 0
    where = {answer: j for j, answer in enumerate(rebuilt_answers or []) if answer is not None}
    pairs = [(i, where.get(answer)) for i, answer in enumerate(ids)]
    paired = {j for _, j in pairs if j is not None}
    first = min(paired, default=n_rebuilt)
    unpaired = [j for j in range(n_rebuilt) if j not in paired]
    return pairs, [j for j in unpaired if j > first], sum(j < first for j in unpaired)


def compare_requests(
    rebuilt: list[dict[str, Any]],
    wire: list[dict[str, Any]],
    *,
    rebuilt_answers: list[Any] | None = None,
    wire_answers: list[Any] | None = None,
) -> Comparison:
    """Hold each rebuilt request body against the one sent.

    ``*_answers`` are the ids of the messages that answered each request, when known: requests
    are then paired by them, else by position."""
    result = Comparison(wire_requests=len(wire), rebuilt_requests=len(rebuilt))
    tally = _Tally()
    pairs, extra, earlier = _pairs(len(rebuilt), len(wire), rebuilt_answers, wire_answers)
    for i, j in pairs:
        if j is None:
            result.differences.append(
                _diff("missing-request", i + 1, None, None, None,
                      "sent, but the rebuild has no such request", "发出了，重建里没有这次请求")
            )  # fmt: skip
        else:
            result.differences += _request(i + 1, wire[i], rebuilt[j], tally)
    for j in extra:
        result.differences.append(
            _diff("extra-request", j + 1, None, None, None,
                  "rebuilt, but never sent", "重建了，却没有发出")
        )  # fmt: skip
    result.unknowable = _unknowable(tally)
    if earlier:
        result.unknowable.append(
            Unknowable("earlier", earlier,
                       f"{earlier} requests of the transcript before this wire's first "
                       "(a resumed session: an earlier run sent them)",
                       f"记录文件里比这次线上第一个请求更早的{earlier}次请求"
                       "（会话是恢复的：它们由之前的一次执行发出）")
        )  # fmt: skip
    return result


def _unknowable(tally: _Tally) -> list[Unknowable]:
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
