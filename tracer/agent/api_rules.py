"""The Messages API's own rules for a request body, checked offline.

The real API keeps no state between calls, so every request must be a complete, well-formed
conversation on its own. When it is not, the API answers HTTP 400 ``invalid_request_error`` and
says what is wrong in one sentence. :func:`validate_request` applies the same rules to a body and
returns that sentence, so a fault scenario played against the scripted transport
(:class:`~tracer.agent.scripted.ScriptedTransport` with ``validator=validate_request``) fails the
way a broken request fails for real, and its trace still ends validly with ``model_error``.

**Roles need not alternate, by the SDK's word.** The SDK's documentation of the ``messages``
parameter says consecutive ``user`` or ``assistant`` turns are combined into a single turn, so
two assistant messages in a row are not an error here; the rules below are judged on the
combined turns. Claude Code 2.1.88's own comments say the opposite (the API requires
alternation and rejects an assistant message after another, ``messages.ts``), which is why its
pairing patch sends ``(no content)`` rather than let two assistant messages meet; the guide gives
both. (Claude Code merges consecutive user messages itself, in
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
patches its request first (:func:`tracer.model.pairing.ensure_tool_result_pairing`).

:func:`find_problems` returns every problem, each with its position and the tool ids involved,
which is what the doctor needs; ``validate_request`` is its first problem's text. The checks run
in the API's two passes: the fields of each message (:mod:`tracer.agent.api_fields`), then the
conversation's shape (:mod:`tracer.agent.api_shape`); each finding is a
:class:`~tracer.agent.api_problem.Problem`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracer.agent.api_fields import message_schema
from tracer.agent.api_problem import Problem
from tracer.agent.api_shape import message_shape, unique_tool_use_ids


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
        problems += message_schema(messages, i)
    if problems and stop_at_schema:
        return problems
    shaped = _AsDicts(messages)
    if start == 0:
        problems += unique_tool_use_ids(shaped)
    # The API combines consecutive same-role messages: a new message may extend the turn the
    # checked prefix ended with, so that turn is judged again from its first message.
    first = max(start, 0)
    while 0 < first < len(shaped) and shaped[first - 1].get("role") == shaped[first].get("role"):
        first -= 1
    for i in range(first, len(shaped)):
        problems += message_shape(shaped, i, checked=i < start)
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


__all__ = [
    "find_problems",
    "validate_request",
]
