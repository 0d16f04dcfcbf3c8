"""The API's second check of a request: is the conversation well formed?

Once every field is valid (:mod:`tracer.agent.api_fields`), the Messages API judges the
conversation as a whole, on turns: consecutive messages of one role count as one turn. The first
turn is the user's; every message has content and no text block is blank; ``tool_use`` ids are
unique; and, the rule chapter 12 is about, the user turn after a ``tool_use`` opens with exactly
one ``tool_result`` for each call, and no result answers a call that was not made. Positions
(``messages.N``) name the message as sent, before turns are combined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracer.agent.api_problem import Problem


def _blocks(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's blocks that are objects (the shape checks skip what the field checks
    already refused)."""
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _tool_use_ids(msg: dict[str, Any]) -> list[str]:
    return [str(b.get("id")) for b in _blocks(msg) if b.get("type") == "tool_use"]


def unique_tool_use_ids(messages: Sequence[dict[str, Any]]) -> list[Problem]:
    seen: set[str] = set()
    for i, msg in enumerate(messages):
        for j, block in enumerate(_blocks(msg)):
            if block.get("type") != "tool_use":
                continue
            tool_id = str(block.get("id"))
            if tool_id in seen:
                return [
                    Problem(
                        "duplicate_tool_use_id",
                        f"messages.{i}.content.{j}: `tool_use` ids must be unique",
                        i,
                        j,
                        "tool_use",
                        (tool_id,),
                    )
                ]
            seen.add(tool_id)
    return []


def _turn_end(messages: Sequence[dict[str, Any]], i: int) -> int:
    """The index after the last message of the turn message ``i`` opens or belongs to."""
    role = messages[i].get("role")
    j = i + 1
    while j < len(messages) and messages[j].get("role") == role:
        j += 1
    return j


def _turn_start(messages: Sequence[dict[str, Any]], i: int) -> int:
    role = messages[i].get("role")
    while i > 0 and messages[i - 1].get("role") == role:
        i -= 1
    return i


def message_shape(
    messages: Sequence[dict[str, Any]], i: int, *, checked: bool = False
) -> list[Problem]:
    """What is wrong with message ``i`` itself and, when it opens a turn, with that turn.

    ``checked``: message ``i`` itself was checked before (only its turn is judged again).
    """
    msg = messages[i]
    role = msg.get("role")
    last = i == len(messages) - 1
    out: list[Problem] = []
    if not checked:
        if i == 0 and role != "user":
            out.append(
                Problem("first_not_user", 'messages: first message must use the "user" role', 0)
            )
        content = msg.get("content")
        if not content and not (last and role == "assistant"):
            out.append(
                Problem(
                    "empty_content",
                    f"messages.{i}: all messages must have non-empty "
                    "content except for the optional final assistant message",
                    i,
                )
            )
        for j, block in enumerate(_blocks(msg)):
            text = block.get("text")
            if block.get("type") == "text" and isinstance(text, str) and not text.strip():
                wording = "must be non-empty" if not text else "must contain non-whitespace text"
                out.append(
                    Problem("empty_text", f"messages: text content blocks {wording}", i, j, "text")
                )
    opens_turn = i == 0 or messages[i - 1].get("role") != role
    if not opens_turn:
        return out
    end = _turn_end(messages, i)
    if role == "user":
        out += _answers(messages, i, end)
    elif role == "assistant" and end == len(messages):
        # A tool call must be answered by the very next turn; a final assistant turn that asks
        # for a tool leaves it unanswered.
        asked = [(k, t) for k in range(i, end) for t in _tool_use_ids(messages[k])]
        if asked:
            out.append(_unanswered(asked[0][0], [t for _, t in asked]))
    return out


def _answers(messages: Sequence[dict[str, Any]], i: int, end: int) -> list[Problem]:
    """Does the user turn ``i``…``end`` answer exactly the tool calls of the turn before it?"""
    asked_at: list[tuple[int, str]] = []
    if i > 0 and messages[i - 1].get("role") == "assistant":
        start = _turn_start(messages, i - 1)
        asked_at = [(k, t) for k in range(start, i) for t in _tool_use_ids(messages[k])]
    asked = [t for _, t in asked_at]
    out: list[Problem] = []
    answered: list[str] = []
    kinds: list[str | None] = []
    for k in range(i, end):
        if isinstance(messages[k].get("content"), str):
            kinds.append("text")  # a string is one text block
        for j, block in enumerate(_blocks(messages[k])):
            kinds.append(block.get("type"))
            if block.get("type") != "tool_result":
                continue
            tool_use_id = block.get("tool_use_id")
            if not isinstance(tool_use_id, str) or not tool_use_id:
                continue  # a field problem, reported as such
            if tool_use_id not in asked or tool_use_id in answered:
                out.append(
                    Problem(
                        "unexpected_tool_use_id",
                        f"messages.{k}.content.{j}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {tool_use_id}. Each `tool_result` block must "
                        "have a corresponding `tool_use` block in the previous message.",
                        k,
                        j,
                        "tool_result",
                        (tool_use_id,),
                    )
                )
            answered.append(tool_use_id)
    if not asked:
        return out
    leading = 0
    while leading < len(kinds) and kinds[leading] == "tool_result":
        leading += 1
    if answered and leading < len(answered):
        out.append(
            Problem(
                "results_not_first",
                f"messages.{i}: Did not find {len(asked)} `tool_result` block(s) at the "
                "beginning of this message. Messages following `tool_use` blocks must begin with "
                "a matching number of `tool_result` blocks.",
                i,
                None,
                None,
                tuple(asked),
            )
        )
    missing = [(k, t) for k, t in asked_at if t not in answered]
    if missing:
        out.append(_unanswered(missing[0][0], [t for _, t in missing]))
    return out


def _unanswered(i: int, missing: list[str]) -> Problem:
    return Problem(
        "tool_use_without_result",
        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message.",
        i,
        None,
        None,
        tuple(missing),
    )
