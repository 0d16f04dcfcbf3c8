"""Wire against transcript, the first part: a request body as the comparison sees it.

A request Claude Code sent carries things its transcript never holds, so no import can rebuild
them. Some are body keys the rebuilt request lacks (the system prompt, the tools list, the other
parameters: :mod:`.against` counts those); two sit inside the messages, and this module takes
them out before any message is compared, counting what it took in a :class:`Tally`
(:mod:`.against_findings` names the counts):

* the ``<system-reminder>`` texts Claude Code injects (the skills list, the date, Read's note
  in a result), cut out of the text they sit in, with the blank lines around them; a block
  left empty goes, and so does a message left with no block;
* the ``cache_control`` markers, which Claude Code moves to the newest message at each request
  (``addCacheBreakpoints`` in ``src/services/api/claude.ts``), so they say nothing of the history.

Each message keeps its index in the request as sent, so a difference can point at it there. The
rebuilt side goes through the same cleaning, uncounted: the tally is of what the wire carried.
Last, the text helpers: a value's canonical JSON (:func:`canonical`, what "the same" means) and
short previews of it for the messages a reader sees. Pure: dicts in, dicts out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

#: A reminder Claude Code injects, with the blank lines around it.
_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)


@dataclass
class Tally:
    """What the wire's requests carried that a transcript cannot: reminders cut out, markers
    dropped, and each body key the rebuilt request lacks, with the requests that had it."""

    reminders: int = 0
    markers: int = 0
    keys: dict[str, int] = field(default_factory=dict)


def _strip_text(text: str) -> tuple[str, int]:
    """``text`` without its reminders, and how many there were."""
    stripped, n = _REMINDER.subn("\n", text)
    return (stripped.strip("\n") if n else text), n


def _block(block: Any, tally: Tally | None) -> dict[str, Any] | None:
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


def comparable_messages(
    body: dict[str, Any], tally: Tally | None
) -> list[tuple[int, dict[str, Any]]]:
    """The messages as compared, each with its index in the request as sent (``tally``: where
    to count what was taken out, ``None`` for the rebuilt side)."""
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


def canonical(value: Any) -> str:
    """``value`` as canonical JSON (keys sorted): two values are the same when these are."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def preview(value: Any, width: int = 70) -> str:
    """The start of ``value``'s JSON, cut to ``width`` with an ellipsis."""
    text = canonical(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def previews(sent: Any, built: Any, width: int = 70) -> tuple[str, str]:
    """Both sides, from a little before the first character where they part."""
    a, b = canonical(sent), canonical(built)
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    start = max(0, at - 20)

    def cut(text: str) -> str:
        shown = ("…" if start else "") + text[start:]
        return shown if len(shown) <= width else shown[: width - 1] + "…"

    return cut(a), cut(b)
