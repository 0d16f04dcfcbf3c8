"""Claude Code's ``ensureToolResultPairing``: the request as it is really sent.

``claude.ts`` (2.1.88) calls it right after ``normalizeMessagesForAPI``, on every request. It
patches the outgoing request only (the internal list keeps its hole): a ``tool_use`` that the
next user message does not answer gets an ``is_error`` result with
:data:`~tracer.messages.MISSING_RESULT_MESSAGE`, and a ``tool_result`` that answers no
``tool_use`` of the message before it is stripped. So where the bare API answers HTTP 400, Claude
Code sends a request the API accepts and the session goes on, the model told only that a result
is missing. This sits beside :mod:`tracer.messages`, on the same bottom layer: it works on the
same :class:`~tracer.messages.ApiMessage` parts, so a patched request is still stored by reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tracer.messages import ApiMessage, Message, Part, is_tool_result_part, resolve_part


@dataclass(frozen=True, slots=True)
class PairingRepair:
    """What :func:`ensure_tool_result_pairing` changed in one request."""

    added: tuple[str, ...] = ()
    """``tool_use`` ids that had no result and got a synthetic ``is_error`` one."""
    stripped: tuple[str, ...] = ()
    """``tool_use_id`` values of results that answered no call of the message before them."""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.stripped)

    def to_json(self) -> dict[str, list[str]]:
        return {"added": list(self.added), "stripped": list(self.stripped)}


def _result_id(block: Any) -> str | None:
    if isinstance(block, dict) and block.get("type") == "tool_result":
        value = block.get("tool_use_id")
        return value if isinstance(value, str) and value else ""
    return None


def ensure_tool_result_pairing(
    api_messages: Sequence[ApiMessage],
    by_uuid: dict[str, Any],
    synthetic_result: Callable[[str, str], Message],
) -> tuple[list[ApiMessage], PairingRepair]:
    """The request as Claude Code 2.1.88 sends it: every ``tool_use`` answered, no orphan result.

    ``claude.ts`` calls ``ensureToolResultPairing`` right after ``normalizeMessagesForAPI``. It
    patches the outgoing request only (the internal list keeps its hole): a ``tool_use`` that the
    next user message does not answer gets an ``is_error`` result with
    :data:`MISSING_RESULT_MESSAGE`, and a ``tool_result`` that answers no ``tool_use`` of the
    message before it is stripped. So where the bare API answers HTTP 400, Claude Code sends a
    request the API accepts and the session goes on.

    ``synthetic_result(tool_use_id, assistant_uuid)`` makes (and the caller records) the user
    message holding one synthetic block; the patched request points at its block 0, so a trace
    still stores the request by reference. Three details are tracer's own, because the reference
    does not pin them down: synthetic results go right after the message's real results (still
    ahead of any text); a user message left empty by stripping is dropped; and a message holding
    a result block without a usable ``tool_use_id`` is left as it is (what it answers cannot be
    told, so the API's field check speaks instead).
    """
    out: list[ApiMessage] = []
    added: list[str] = []
    stripped: list[str] = []
    asked: list[tuple[str, str]] = []  # (tool_use id, assistant uuid) of the last assistant turn
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
            continue
        blocks = [resolve_part(part, by_uuid) for part in api.parts]
        ids = [_result_id(b) for b in blocks]
        if "" in ids:
            out.append(api)
            asked = []
            continue
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
            leading = 0
            while leading < len(kept) and is_tool_result_part(kept[leading], by_uuid):
                leading += 1
            extra = _synthetic_message(missing, synthetic_result, added).parts
            kept[leading:leading] = extra
        asked = []
        if kept == api.parts:
            out.append(api)
        elif kept:
            out.append(ApiMessage("user", kept))
    if asked:
        out.append(_synthetic_message(asked, synthetic_result, added))
    return out, PairingRepair(tuple(added), tuple(stripped))


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
