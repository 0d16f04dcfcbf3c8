"""Did each result get back to the model, under the right id?

Two rows of the chapter's table of common errors:

* **result-not-returned** (工具结果没回到 AI): a ``tool_use`` whose result is missing from the next
  request. In Claude Code the result travels ``addToolResult`` → ``resultingMessages.push()`` →
  ``[...messagesForQuery, ...assistantMessages, ...toolResults]`` → the next ``callModel``; if any
  link is skipped the API sees a tool call nobody answered. A session that stopped at
  ``max_turns`` legitimately leaves its last results unsent (that is the max-turns warning's
  story), and so does one the user interrupted.
* **tool-use-id-mismatch** (tool_use_id 不匹配): a ``tool_result`` whose ``tool_use_id`` answers no
  ``tool_use`` of the assistant message right before it, or answers one twice.

A result that did travel but is broken (wrong id, missing fields) counts as returned here: its
wrapped message is in the request, and the mismatch or malformed-result rule tells its story.
"""

from __future__ import annotations

import itertools
from typing import Any

from tracer.doctor.facts import ToolUse, TraceFacts
from tracer.doctor.finding import Finding
from tracer.doctor.request_notes import pairing_note, refused_note
from tracer.doctor.sent_requests import SentRequest

#: Endings after which unsent results are expected, not a fault.
_STOPPED_SHORT = ("max_turns", "aborted_tools", "aborted_streaming")


def _position_of(request: SentRequest, tool_use_id: str) -> int | None:
    # A call first travels in the request right after its response, among the messages that
    # request added (from ``start`` on); look there first, then anywhere.
    window = range(max(request.start - 1, 0), len(request.wire))
    for position in itertools.chain(window, range(0, window.start)):
        message = request.wire[position]
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("id") == tool_use_id
            ):
                return position
    return None


def _answered(facts: TraceFacts, request: SentRequest, use: ToolUse) -> bool:
    position = _position_of(request, use.id)
    if position is None:
        return True  # the call itself is not in this request: nothing to judge here
    following = position + 1
    if following >= len(request.wire) or request.wire[following].get("role") != "user":
        return False
    content = request.wire[following].get("content")
    parts = request.api[following].parts if following < len(request.api) else []
    for k, block in enumerate(content if isinstance(content, list) else []):
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_result"
            and block.get("tool_use_id") == use.id
            and not _made_up(facts, parts[k][0] if k < len(parts) else None)
        ):
            return True
    wrapped = facts.wrapped.get(use.id)
    return wrapped is not None and wrapped.message_uuid in request.uuids(following)


def _made_up(facts: TraceFacts, uuid: str | None) -> bool:
    """A result the pairing patch made up answers the call only on paper: the real one is lost."""
    message = facts.messages.get(uuid or "")
    return message is not None and message.origin == "synthetic"


def _why(facts: TraceFacts, use: ToolUse, lang: str = "en") -> str:
    zh = lang == "zh"
    if use.id not in facts.wrapped:
        if use.id in facts.mapped:
            mapped = (
                "（结果翻译过了，但没有包装、没有 push）"
                if zh
                else " (it was mapped but never wrapped and pushed)"
            )
        else:
            mapped = ""
        if zh:
            return f"它的结果从未进入历史{mapped}"
        return f"its result never joined the history{mapped}"
    if zh:
        return "结果消息包装好了，却没有追加到发出的历史里"
    return "its result message was wrapped but not appended to the history that was sent"


def check_result_not_returned(facts: TraceFacts) -> list[Finding]:
    findings: list[Finding] = []
    missing: dict[int, list[ToolUse]] = {}
    ended_without: dict[int, list[ToolUse]] = {}
    for use in facts.tool_uses:
        request = facts.next_request(use.response_index)
        end = facts.end_after(use.response_index)
        if request is None or (end is not None and end < request.index):
            # No request came before the loop returned: an error only if it stopped normally.
            if end is not None and facts.events[end].reason not in _STOPPED_SHORT:
                ended_without.setdefault(end, []).append(use)
            continue
        patched = (request.event.pairing or {}).get("added") or []
        if use.id in facts.explained and use.id in patched:
            continue  # a wrong id the mismatch rule already told (its result was stripped)
        if not _answered(facts, request, use):
            missing.setdefault(request.index, []).append(use)
    for index, uses in missing.items():
        request = next(r for r in facts.requests if r.index == index)
        facts.explained.update(u.id for u in uses)
        calls = ", ".join(f"{u.id} ({u.name})" for u in uses)
        findings.append(
            facts.finding(
                "result-not-returned",
                index,
                f"request {request.number} resends the tool call {calls} without its "
                f"tool_result: {_why(facts, uses[0])}{refused_note(request)}"
                f"{pairing_note(facts.requests, request, [u.id for u in uses])}",
                f"第{request.number}次请求重发了工具调用 {calls}，却没有带上它的 tool_result："
                f"{_why(facts, uses[0], 'zh')}{refused_note(request, 'zh')}"
                f"{pairing_note(facts.requests, request, [u.id for u in uses], 'zh')}",
            )
        )
    for end, uses in ended_without.items():
        facts.explained.update(u.id for u in uses)
        calls = ", ".join(f"{u.id} ({u.name})" for u in uses)
        findings.append(
            facts.finding(
                "result-not-returned",
                end,
                f"the session ended ({facts.events[end].reason}) without sending the result of "
                f"{calls} back to the model",
                f"会话结束了（{facts.events[end].reason}），{calls} 的结果却没有送回 AI",
            )
        )
    return findings


def _result_blocks(message: dict[str, Any]) -> list[tuple[int, str]]:
    content = message.get("content")
    out = []
    for j, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            tool_use_id = block.get("tool_use_id")
            if isinstance(tool_use_id, str) and tool_use_id:  # else: a malformed block
                out.append((j, tool_use_id))
    return out


def check_tool_use_id_mismatch(facts: TraceFacts) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for request in facts.requests:
        for i in range(max(request.start, 0), len(request.wire)):
            message = request.wire[i]
            if message.get("role") != "user":
                continue
            previous = request.wire[i - 1] if i > 0 else {}
            asked = []
            if previous.get("role") == "assistant" and isinstance(previous.get("content"), list):
                asked = [
                    str(b.get("id"))
                    for b in previous["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_use"
                ]
            answered: list[str] = []
            for j, tool_use_id in _result_blocks(message):
                twice = tool_use_id in answered
                answered.append(tool_use_id)
                if tool_use_id in asked and not twice:
                    continue
                if tool_use_id in facts.history_answers and not asked and not twice:
                    continue  # its call is in the part of the session this file lacks
                key = (min(request.uuids(i), default=""), j)
                if key in seen:
                    continue
                seen.add(key)
                unanswered = [a for a in asked if a not in answered]
                facts.explained.update([tool_use_id, *unanswered])
                source = facts.by_message.get(_block_uuid(request, i, j) or "")
                index = facts.result_index(source) if source else None
                asked_text = ", ".join(asked) if asked else "no tool_use at all"
                asked_zh = "、".join(asked) if asked else "任何 tool_use"
                if twice:
                    what = f"a second tool_result answers {tool_use_id}"
                    what_zh = f"又有一个 tool_result 回答 {tool_use_id}"
                else:
                    what = (
                        f"tool_result answers {tool_use_id}, but the assistant message "
                        f"before it asked for {asked_text}"
                    )
                    what_zh = (
                        f"tool_result 回答的是 {tool_use_id}，但它前面那条 assistant 消息请求的是 "
                        f"{asked_zh}"
                        if asked
                        else f"tool_result 回答的是 {tool_use_id}，但它前面那条 assistant 消息"
                        "没有请求任何 tool_use"
                    )
                if source and source != tool_use_id:
                    what += f" (it is the result of {source})"
                    what_zh += f"（它其实是 {source} 的结果）"
                involved = [tool_use_id, *unanswered]
                findings.append(
                    facts.finding(
                        "tool-use-id-mismatch",
                        index if index is not None else request.index,
                        f"request {request.number}, messages.{i}.content.{j}: {what}"
                        f"{refused_note(request)}"
                        f"{pairing_note(facts.requests, request, involved)}",
                        f"第{request.number}次请求，messages.{i}.content.{j}：{what_zh}"
                        f"{refused_note(request, 'zh')}"
                        f"{pairing_note(facts.requests, request, involved, 'zh')}",
                    )
                )
    findings += _stripped_orphans(facts, seen)
    return findings


def _stripped_orphans(facts: TraceFacts, seen: set[tuple[str, int]]) -> list[Finding]:
    """Results the pairing patch removed before sending: the request no longer shows the wrong
    id, so the result message that carried it is the evidence."""
    findings: list[Finding] = []
    for request in facts.requests:
        orphans = set((request.event.pairing or {}).get("stripped", []))
        if not orphans:
            continue
        for uuid, message in facts.messages.items():
            if message.origin != "tool_result" or not isinstance(message.content, list):
                continue
            for j, block in enumerate(message.content):
                if not isinstance(block, dict) or block.get("tool_use_id") not in orphans:
                    continue
                if (uuid, j) in seen or block.get("type") != "tool_result":
                    continue
                orphan = str(block["tool_use_id"])
                source = facts.by_message.get(uuid)
                if source == orphan:
                    continue  # the call's own result: another block claimed its id
                seen.add((uuid, j))
                facts.explained.update(x for x in (orphan, source) if x)
                index = facts.result_index(source) if source else None
                whose = f"it is the result of {source}" if source else "no call it answers asked"
                whose_zh = f"它其实是 {source} 的结果" if source else "没有哪个调用在等它"
                findings.append(
                    facts.finding(
                        "tool-use-id-mismatch",
                        index if index is not None else request.index,
                        f"a tool_result answers {orphan}, but {whose}; ensureToolResultPairing "
                        f"stripped it from request {request.number} (as Claude Code 2.1.88 "
                        "does, so the API never sees the wrong id)",
                        f"有一个 tool_result 回答的是 {orphan}，但{whose_zh}；"
                        f"ensureToolResultPairing 把它从第{request.number}次请求里删掉了"
                        "（Claude Code 2.1.88 也这样做，API 看不到错的 id）",
                    )
                )
    return findings


def _block_uuid(request: SentRequest, position: int, block: int) -> str | None:
    parts = request.api[position].parts if position < len(request.api) else []
    return parts[block][0] if block < len(parts) else None
