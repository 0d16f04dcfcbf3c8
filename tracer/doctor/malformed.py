"""Is every result block shaped the way the API and the model expect?

The chapter's table says "结果格式不对 → 检查 processToolResultBlock 的输出": look at the block the
mapping step produced. The SDK's ``ToolResultBlockParam`` requires only ``type`` and the
``tool_use_id`` it answers; ``content`` (a string or a list of blocks) and ``is_error`` are
optional. ``is_error`` is a boolean that must agree with the content: set it and give no error
text, and the model is told "this failed" without being told why; leave it off an error (Claude
Code's ``<tool_use_error>`` tag, or Bash's ``Exit code N``) and nothing tells the model that the
text is a failure. Where the results sit in the request (a user message that answers tool calls
must start with them) is an API rule, reported by :mod:`tracer.doctor.invariants`.

Each broken block is reported once, at the mapping step that made it when the trace has one.
"""

from __future__ import annotations

import re
from typing import Any

from tracer.doctor.facts import TraceFacts
from tracer.doctor.finding import Finding
from tracer.doctor.request_notes import pairing_note, refused_note

_EXIT_CODE = re.compile(r"^\s*Exit code \d+")
_TAG = "<tool_use_error>"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def looks_like_error(content: Any) -> str | None:
    """The error marker a result's content starts with, if any."""
    text = _text_of(content).lstrip()
    if text.startswith(_TAG):
        return _TAG
    match = _EXIT_CODE.match(text)
    return match.group(0).strip() if match else None


def block_problems(block: Any, *, expected_result: bool = True) -> list[str]:
    """What is wrong with one result block (empty when nothing is)."""
    return [en for en, _ in block_problems_both(block, expected_result=expected_result)]


def block_problems_both(block: Any, *, expected_result: bool = True) -> list[tuple[str, str]]:
    """:func:`block_problems` as ``(English, Chinese)`` pairs."""
    if not isinstance(block, dict):
        name = type(block).__name__
        return [(f"the block is a {name}, not an object", f"这个块是 {name}，不是对象")]
    problems: list[tuple[str, str]] = []
    kind = block.get("type")
    if kind is None:
        problems.append(("it has no type", "没有 type 字段"))
    elif kind != "tool_result":
        if not expected_result:
            return []
        problems.append(
            (f"its type is {kind!r}, not 'tool_result'", f"type 是 {kind!r}，不是 'tool_result'")
        )
    if "tool_use_id" not in block:
        problems.append(("it has no tool_use_id", "没有 tool_use_id 字段"))
    elif not isinstance(block["tool_use_id"], str) or not block["tool_use_id"]:
        value = block["tool_use_id"]
        problems.append(
            (
                f"its tool_use_id is {value!r}, not an id string",
                f"tool_use_id 是 {value!r}，不是 id 字符串",
            )
        )
    content = block.get("content")
    if "content" not in block:
        pass  # optional: a result without content is valid (an empty one)
    elif not isinstance(content, str | list):
        name = type(content).__name__
        problems.append(
            (
                f"its content is a {name}, not a string or a list of blocks",
                f"content 是 {name}，不是字符串，也不是块的列表",
            )
        )
    elif isinstance(content, list) and any(
        not isinstance(b, dict) or "type" not in b for b in content
    ):
        problems.append(
            ("its content list holds a block without a type", "content 列表里有一个没有 type 的块")
        )
    is_error = block.get("is_error")
    if "is_error" in block and not isinstance(is_error, bool):
        problems.append(
            (
                f"is_error is {is_error!r}, not true or false",
                f"is_error 是 {is_error!r}，不是 true 或 false",
            )
        )
    elif (
        is_error
        and (content is None or isinstance(content, str | list))
        and not _text_of(content).strip()
        and not (isinstance(content, list) and content)
    ):
        problems.append(
            (
                "is_error is set but the content carries no error text",
                "is_error 已设置，content 里却没有错误说明",
            )
        )
    elif not is_error and (marker := looks_like_error(content)):
        problems.append(
            (
                f"the content is an error ({marker}) but is_error is not set",
                f"content 是一条错误（{marker}），is_error 却没有设置",
            )
        )
    return problems


def _is_result_like(block: Any, origin: str | None, position: int, content: list[Any]) -> bool:
    # In a result message the first block is the result, unless a real tool_result sits
    # elsewhere (text put ahead of it is an ordering problem, not a malformed block).
    first_is_result = (
        origin == "tool_result"
        and position == 0
        and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )
    if not isinstance(block, dict):
        return first_is_result
    kind = block.get("type")
    if kind == "tool_result":
        return True
    if kind is None:
        return origin == "tool_result" or "tool_use_id" in block or "is_error" in block
    return first_is_result


def check_malformed_result(facts: TraceFacts) -> list[Finding]:
    findings: list[Finding] = []
    for index, message in facts.user_messages():
        content = message.content
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if not _is_result_like(block, message.origin, j, content):
                continue
            problems = block_problems_both(block)
            if not problems:
                continue
            source = facts.by_message.get(message.uuid)
            block_id = block.get("tool_use_id") if isinstance(block, dict) else None
            facts.explained.update(x for x in (source, block_id) if isinstance(x, str) and x)
            request = facts.first_request_with(message.uuid)
            where = facts.result_index(source) if source else None
            if where is None:
                where = request.index if request is not None else index
            whose = source or (block_id if isinstance(block_id, str) else None)
            refused = request is not None and request.refused
            sent = (
                f"; request {request.number} carried it{refused_note(request)}"
                if (request is not None and refused)
                else ""
            )
            sent_zh = (
                f"；第{request.number}次请求带上了它{refused_note(request, 'zh')}"
                if request is not None and refused
                else ""
            )
            if request is not None and source and not (isinstance(block_id, str) and block_id):
                # A result without an id answers no call: 2.1.88's pairing check strips it
                # and answers the call itself, as for a wrong id.
                sent += pairing_note(facts.requests, request, [source])
                sent_zh += pairing_note(facts.requests, request, [source], "zh")
            english = "; ".join(en for en, _ in problems)
            chinese = "；".join(zh for _, zh in problems)
            findings.append(
                facts.finding(
                    "malformed-result",
                    where,
                    f"the tool_result for {whose or 'a tool call'} is malformed: {english}{sent}",
                    (f"{whose} 的" if whose else "某个工具调用的")
                    + f" tool_result 格式不对：{chinese}{sent_zh}",
                )
            )
    return findings
