"""The Messages API's own rules for a request body, checked offline.

The real API keeps no state between calls, so every request must be a complete, well-formed
conversation on its own. When it is not, the API answers HTTP 400 ``invalid_request_error`` and
says what is wrong in one sentence. :func:`validate_request` applies the same rules to a body and
returns that sentence, so a fault scenario played against the scripted transport
(:class:`~tracer.agent.scripted.ScriptedTransport` with ``validator=validate_request``) fails the
way a broken request fails for real, and its trace still ends validly with ``model_error``.

**Roles need not alternate.** The SDK's documentation of the ``messages`` parameter says it:
"Consecutive ``user`` or ``assistant`` turns in your request will be combined into a single
turn." So two assistant messages in a row are not an error; the rules below are judged on the
combined turns. (Claude Code merges consecutive user messages itself, in
``normalizeMessagesForAPI``, because Bedrock refuses them; the first-party API combines them.)

The sentences are the API's own, as users have reported them verbatim in public bug reports (most
of them from Claude Code sessions that broke the pairing this chapter is about):

* ``messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: …``
  (anthropics/claude-code #1237, #5989 and many more);
* ``messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: …``;
* ``messages.N: Did not find K `tool_result` block(s) at the beginning of this message. …``, for
  a user message that answers tool calls but does not start with the results (reported in 2025,
  anthropics/claude-code #37; whether today's API words it the same way is not confirmed);
* ``messages.N.content.M.tool_result.tool_use_id: Field required`` (and ``….type: Field
  required``, ``….tool_use.id: Field required``: the API validates fields with pydantic, whose
  wording ``Input should be a valid string`` / ``String should match pattern …`` it passes on).
  ``ToolResultBlockParam`` requires only ``type`` and ``tool_use_id``; ``content`` and
  ``is_error`` are optional;
* ``messages: first message must use the "user" role``;
* ``messages.N.content.M: `tool_use` ids must be unique``;
* ``messages.N: all messages must have non-empty content except for the optional final assistant
  message``, ``messages: text content blocks must be non-empty`` (``… must contain
  non-whitespace text`` when there is only white space; both reported from Claude Code 2.1.x).

Two choices are ours, where the public record is silent. When one result answers the wrong id
(both "unexpected" and leaving the real id unanswered), the more specific complaint, the
unexpected id, comes first. And a last assistant message may be a prefill, but not one that asks
for a tool: its ``tool_use`` has no next message to be answered in, so it is unanswered. Field
checks no report shows (``is_error`` of the wrong type, a block that is not an object) use
pydantic's standard wording in the same ``path: message`` form. Positions (``messages.N``) name
the message as sent, before the API combines turns.

Claude Code itself never meets the pairing errors in normal running: ``ensureToolResultPairing``
patches its request first (:func:`tracer.pairing.ensure_tool_result_pairing`).

:func:`find_problems` returns every problem, each with its position and the tool ids involved,
which is what the doctor needs; ``validate_request`` is its first problem's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason the API would refuse a request."""

    code: str
    """``schema`` (a field missing or of the wrong type), ``first_not_user``,
    ``empty_content``, ``empty_text``, ``duplicate_tool_use_id``, ``unexpected_tool_use_id``,
    ``results_not_first`` or ``tool_use_without_result``."""
    text: str
    """The API's error message."""
    message_index: int | None = None
    block_index: int | None = None
    block_type: str | None = None
    """The type of the block the problem is in (``None`` for message-level problems)."""
    ids: tuple[str, ...] = ()
    """The tool ids involved (tool_use ids or tool_result ``tool_use_id`` values)."""


def validate_request(body: dict[str, Any]) -> str | None:
    """The API's error text if it would refuse ``body`` with HTTP 400, else ``None``."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return "messages: Field required"
    problems = find_problems(messages)
    return problems[0].text if problems else None


def find_problems(
    messages: Sequence[Any], start: int = 0, *, stop_at_schema: bool = True
) -> list[Problem]:
    """Every problem in ``messages``: fields first, then the conversation's shape.

    Like the API, the shape is judged only once every field is valid (``stop_at_schema``); the
    doctor, which wants every problem at once, passes ``False``. With ``start`` > 0 only messages
    from ``start`` on are checked, together with how they join the message before them: a caller
    that already checked a request's first ``start`` messages (the doctor, walking requests that
    share a prefix) need not check them again. The request-wide check of unique ``tool_use`` ids
    is done only when ``start`` is 0.
    """
    problems: list[Problem] = []
    for i in range(start, len(messages)):
        problems += _message_schema(messages, i)
    if problems and stop_at_schema:
        return problems
    shaped = _AsDicts(messages)
    if start == 0:
        problems += _unique_tool_use_ids(shaped)
    # The API combines consecutive same-role messages: a new message may extend the turn the
    # checked prefix ended with, so that turn is judged again from its first message.
    first = max(start, 0)
    while 0 < first < len(shaped) and shaped[first - 1].get("role") == shaped[first].get("role"):
        first -= 1
    for i in range(first, len(shaped)):
        problems += _shape(shaped, i, checked=i < start)
    return problems


class _AsDicts(Sequence[dict[str, Any]]):
    """``messages`` with anything that is not an object read as ``{}``, without copying: the
    doctor checks only the new tail of each request, and a copy per request would cost the
    square of the conversation."""

    __slots__ = ("_messages",)

    def __init__(self, messages: Sequence[Any]) -> None:
        self._messages = messages

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [m if isinstance(m, dict) else {} for m in self._messages[i]]
        m = self._messages[i]
        return m if isinstance(m, dict) else {}


# -- fields ------------------------------------------------------------------------------------


def _message_schema(messages: Sequence[Any], i: int) -> list[Problem]:
    where = f"messages.{i}"
    msg = messages[i]
    if not isinstance(msg, dict):
        return [Problem("schema", f"{where}: Input should be a valid dictionary", i)]
    out: list[Problem] = []
    role = msg.get("role")
    if role is None:
        out.append(Problem("schema", f"{where}.role: Field required", i))
    elif role not in _ROLES:
        out.append(Problem("schema", f"{where}.role: Input should be 'user' or 'assistant'", i))
    if "content" not in msg:
        out.append(Problem("schema", f"{where}.content: Field required", i))
        return out
    content = msg["content"]
    if isinstance(content, str):
        return out
    if not isinstance(content, list):
        out.append(Problem("schema", f"{where}.content: Input should be a valid list", i))
        return out
    for j, block in enumerate(content):
        out += _block_schema(block, i, j)
    return out


def _block_schema(block: Any, i: int, j: int) -> list[Problem]:
    where = f"messages.{i}.content.{j}"
    if not isinstance(block, dict):
        return [Problem("schema", f"{where}: Input should be a valid dictionary", i, j)]
    kind = block.get("type")
    if kind is None:
        ids = tuple(str(v) for v in (block.get("tool_use_id"), block.get("id")) if v)
        return [Problem("schema", f"{where}.type: Field required", i, j, None, ids)]
    out: list[Problem] = []

    def field_problem(name: str, wording: str, ids: tuple[str, ...] = ()) -> None:
        out.append(Problem("schema", f"{where}.{kind}.{name}: {wording}", i, j, kind, ids))

    if kind == "tool_result":
        tool_use_id = block.get("tool_use_id")
        if tool_use_id is None:
            field_problem("tool_use_id", "Field required")
        elif not isinstance(tool_use_id, str):
            field_problem("tool_use_id", "Input should be a valid string")
        elif not _ID_PATTERN.match(tool_use_id):
            field_problem(
                "tool_use_id", "String should match pattern '^[a-zA-Z0-9_-]+$'", (tool_use_id,)
            )
        content = block.get("content")
        if content is not None and not isinstance(content, str | list):
            field_problem("content", "Input should be a valid string")
        if "is_error" in block and not isinstance(block["is_error"], bool):
            field_problem("is_error", "Input should be a valid boolean")
    elif kind == "tool_use":
        tool_id = block.get("id")
        if tool_id is None:
            field_problem("id", "Field required")
        elif not isinstance(tool_id, str) or not _ID_PATTERN.match(tool_id):
            field_problem("id", "String should match pattern '^[a-zA-Z0-9_-]+$'")
        for name in ("name", "input"):
            if name not in block:
                field_problem(name, "Field required")
    elif kind == "text" and not isinstance(block.get("text"), str):
        field_problem(
            "text", "Field required" if "text" not in block else "Input should be a valid string"
        )
    return out


# -- the conversation's shape ------------------------------------------------------------------


def _blocks(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's blocks that are objects (the shape checks skip what the field checks
    already refused)."""
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _tool_use_ids(msg: dict[str, Any]) -> list[str]:
    return [str(b.get("id")) for b in _blocks(msg) if b.get("type") == "tool_use"]


def _unique_tool_use_ids(messages: Sequence[dict[str, Any]]) -> list[Problem]:
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


def _shape(messages: Sequence[dict[str, Any]], i: int, *, checked: bool = False) -> list[Problem]:
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
