"""The shapes an importer may assume, checked where each record comes in.

The importers are written for the files Claude Code and claude-trace write: a record's
``message`` is an object, its ``content`` a string or a list of blocks, an API log's request body
holds a ``messages`` list. A damaged or hostile file can put a number where a block belongs, and
code several calls away would fail on it. So :func:`tracer.importers.jsonl.read_jsonl` asks one of
the functions here about every record, and a record of the wrong shape is skipped and counted like
an unreadable line: the import goes on with what is sound, and says what it left out.

Claude Code's own loader (``utils/sessionStorage.ts``) likewise drops lines it cannot parse; it
trusts the shapes, since it wrote them.
"""

from __future__ import annotations

from typing import Any

_IDS = ("uuid", "parentUuid", "logicalParentUuid", "sessionId", "sourceToolAssistantUUID")


def content_problem(content: Any, where: str = "content") -> str | None:
    """A message content: a string, or a list of blocks (objects with a string ``type``)."""
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"{where} is {type(content).__name__}, not a string or a list of blocks"
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return f"{where}[{i}] is not a block"
        if block["type"] == "tool_result":
            inner = block.get("content")
            if inner is not None and (problem := content_problem(inner, f"{where}[{i}].content")):
                return problem
        for key in ("id", "tool_use_id", "name", "text"):
            if key in block and not isinstance(block[key], str):
                return f"{where}[{i}].{key} is not a string"
    return None


def transcript_record(rec: dict[str, Any]) -> str | None:
    """What is wrong with one Claude Code transcript record, or ``None``."""
    for key in _IDS:
        if rec.get(key) is not None and not isinstance(rec[key], str):
            return f"{key} is not a string"
    if rec.get("type") not in ("user", "assistant"):
        return None
    if not isinstance(rec.get("uuid"), str):
        return "a message record without a string uuid"
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return "message is not an object"
    if msg.get("id") is not None and not isinstance(msg["id"], str):
        return "message.id is not a string"
    if msg.get("usage") is not None and not isinstance(msg["usage"], dict):
        return "message.usage is not an object"
    if "content" in msg:
        return content_problem(msg["content"], "message.content")
    return None


def api_log_record(rec: dict[str, Any]) -> str | None:
    """What is wrong with one request/response pair of an API log, or ``None``."""
    request, response = rec.get("request"), rec.get("response")
    if request is None:
        return None  # not a pair at all: the importer counts it as such
    if not isinstance(request, dict):
        return "request is not an object"
    if request.get("headers") is not None and not isinstance(request["headers"], dict):
        return "request.headers is not an object"
    body = request.get("body")
    if isinstance(body, dict):
        messages = body.get("messages")
        if messages is not None and not isinstance(messages, list):
            return "request.body.messages is not a list"
        for i, api in enumerate(messages or []):
            if not isinstance(api, dict) or not isinstance(api.get("role"), str):
                return f"request.body.messages[{i}] is not a message"
            if problem := content_problem(api.get("content"), f"messages[{i}].content"):
                return problem
        tools = body.get("tools")
        if tools is not None and not (
            isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
        ):
            return "request.body.tools is not a list of objects"
    if response is not None and not isinstance(response, dict):
        return "response is not an object"
    if isinstance(response, dict):
        status = response.get("status_code")
        if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
            return "response.status_code is not a number"
        answer = response.get("body")
        if isinstance(answer, dict) and answer.get("type") == "message":
            if problem := content_problem(answer.get("content"), "response.body.content"):
                return problem
            if answer.get("usage") is not None and not isinstance(answer["usage"], dict):
                return "response.body.usage is not an object"
        raw = response.get("body_raw")
        if raw is not None and not isinstance(raw, str):
            return "response.body_raw is not a string"
    return None
