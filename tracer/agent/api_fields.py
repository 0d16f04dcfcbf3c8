"""The API's first check of a request: every field present and of the right type.

The Messages API validates a body with pydantic before it looks at the conversation, and passes
pydantic's wording on: ``messages.N.content.M.tool_result.tool_use_id: Field required``, ``…:
Input should be a valid string``, ``…: String should match pattern '^[a-zA-Z0-9_-]+$'``. This
module applies those checks to one message at a time. ``ToolResultBlockParam`` requires only
``type`` and ``tool_use_id``; ``content`` and ``is_error`` are optional, so only their types are
checked. Until every field is valid, the shape of the conversation
(:mod:`tracer.agent.api_shape`) is not judged at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tracer.agent.api_problem import Problem

_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
_ROLES = ("user", "assistant")


def message_schema(messages: Sequence[Any], i: int) -> list[Problem]:
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
