"""Claude Code's ``ensureToolResultPairing``: the request as it is really sent.

``claude.ts`` (2.1.88) calls it right after ``normalizeMessagesForAPI``, on every request. It
patches the outgoing request only (the internal list keeps its hole): a ``tool_use`` that the
next user message does not answer gets an ``is_error`` result with
:data:`~tracer.model.internal_messages.MISSING_RESULT_MESSAGE`, and a ``tool_result`` that answers
no ``tool_use`` of the message before it (a wrong id, no id at all, or a second answer to the same
call) is stripped. So where the bare API answers HTTP 400, Claude Code sends a request the API
accepts and the session goes on, the AI told only that a result is missing. This sits beside
:mod:`tracer.model`, on the same bottom layer: it works on the same
:class:`~tracer.model.api_messages.ApiMessage` parts, so a patched request is still stored by
reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tracer.model.api_messages import ApiMessage, Part, resolve_part
from tracer.model.internal_messages import Message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NO_ID = ""
"""What :attr:`PairingRepair.stripped` holds for a stripped result that had no usable id."""


@dataclass(frozen=True, slots=True)
class PairingRepair:
    """What :func:`ensure_tool_result_pairing` changed in one request."""

    added: tuple[str, ...] = ()
    """``tool_use`` ids that had no result and got a synthetic ``is_error`` one."""
    stripped: tuple[str, ...] = ()
    """``tool_use_id`` values of results that answered no call of the message before them
    (:data:`NO_ID` for a result without a usable ``tool_use_id``)."""
    no_content: int = 0
    """User messages that stripping emptied, sent as ``(no content)`` instead."""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.stripped or self.no_content)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"added": list(self.added), "stripped": list(self.stripped)}
        if self.no_content:
            out["no_content"] = self.no_content
        return out


def _result_id(block: Any) -> str | None:
    """``None`` for a block that is no ``tool_result``; :data:`NO_ID` for one without an id."""
    if isinstance(block, dict) and block.get("type") == "tool_result":
        value = block.get("tool_use_id")
        return value if isinstance(value, str) and value else NO_ID
    return None


def ensure_tool_result_pairing(
    api_messages: Sequence[ApiMessage],
    by_uuid: dict[str, Any],
    synthetic_result: Callable[[str, str], Message],
    no_content: Callable[[], Message],
) -> tuple[list[ApiMessage], PairingRepair]:
    """The request as Claude Code 2.1.88 sends it: every ``tool_use`` answered, no orphan result.

    As in ``messages.ts``: after each assistant message, the next user message's results are
    held against the calls. A call without a result gets a synthetic ``is_error`` block, put
    FIRST in that user message (``[...syntheticBlocks, ...content]``); a result that answers no
    call of that assistant message (a wrong id, no ``tool_use_id`` at all, or a second answer to
    one call) is stripped. A user message that stripping leaves empty is replaced by a
    ``(no content)`` user message, so the roles still alternate; a user message that follows no
    assistant message loses every result block, and is dropped if nothing is left. A call
    followed by another assistant message (or by nothing) gets a user message of its own.

    ``synthetic_result(tool_use_id, assistant_uuid)`` makes (and the caller records) the user
    message holding one synthetic block, and ``no_content()`` the ``(no content)`` message; the
    patched request points at them, so a trace still stores the request by reference.
    """
    out: list[ApiMessage] = []
    added: list[str] = []
    stripped: list[str] = []
    emptied = 0
    asked: list[tuple[str, str]] = []  # (tool_use id, assistant uuid) of the last assistant turn
    after_assistant = False
    for api in api_messages:
        if api.role == "assistant":
            if asked:  # a tool call followed by another assistant message: answer it first
                out.append(_synthetic_message(asked, synthetic_result, added))
            asked = []
            for uuid, index in api.parts:
                block = resolve_part((uuid, index), by_uuid)
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    asked.append((str(block.get("id")), uuid))
            out.append(api)
            after_assistant = True
            continue
        ids = [_result_id(resolve_part(part, by_uuid)) for part in api.parts]
        wanted = {tool_id for tool_id, _ in asked}
        kept: list[Part] = []
        answered: set[str] = set()
        for part, tool_id in zip(api.parts, ids, strict=True):
            if tool_id is not None and (tool_id not in wanted or tool_id in answered):
                stripped.append(tool_id)
                continue
            if tool_id is not None:
                answered.add(tool_id)
            kept.append(part)
        missing = [(t, u) for t, u in asked if t not in answered]
        if missing:
            kept[0:0] = _synthetic_message(missing, synthetic_result, added).parts
        asked = []
        if kept == api.parts:
            out.append(api)
        elif kept:
            out.append(ApiMessage("user", kept))
        elif after_assistant:
            emptied += 1
            out.append(ApiMessage("user", [(no_content().uuid, None)]))
        after_assistant = False
    if asked:
        out.append(_synthetic_message(asked, synthetic_result, added))
    return out, PairingRepair(tuple(added), tuple(stripped), emptied)


def _synthetic_message(
    missing: list[tuple[str, str]],
    synthetic_result: Callable[[str, str], Message],
    added: list[str],
) -> ApiMessage:
    parts: list[Part] = []
    for tool_id, assistant_uuid in missing:
        parts.append((synthetic_result(tool_id, assistant_uuid).uuid, 0))
        added.append(tool_id)
    return ApiMessage("user", parts)
