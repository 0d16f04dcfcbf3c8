"""The conversation loop as Rich text: the steps around the trip, from the session to its end.

Each turn of ``while (true)`` starts with the whole history (``turn_start``), sends it and gets
the AI's response (one internal assistant message per content block), then asks whether to
follow up: any ``tool_use`` block means run the tools and loop again, none means the loop ends.
Before the next turn the turn limit is checked (``max_turns_check``); the session ends with a
``terminal`` step saying why. The trip's own steps (① to ④) have their modules:
:mod:`render_mapping`, :mod:`render_wrapping` and :mod:`render_history`.
"""

from __future__ import annotations

import json

from rich.text import Text

from tracer.trace.events import MessageRecorded
from tracer.trace.tokens import Tokens, tokens_of
from tracer.view import context
from tracer.view.fold import as_json, folded_text
from tracer.view.i18n import colon, in_lang
from tracer.view.render_parts import LABEL, block_text, field, hanging, request_label, title
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import (
        FollowUpDecided,
        MaxTurnsChecked,
        ResponseReceived,
        SessionEnded,
        SessionStarted,
        TurnStarted,
    )


def render_session(index: StepIndex, step: int, event: SessionStarted, lang: str) -> Text:
    out = title("session", lang, (event.title or {}).get(lang, "") if event.title else "")
    field(out, in_lang(lang, "model", "AI"), event.model, lang=lang)
    field(out, in_lang(lang, "tools", "可用工具"), ", ".join(event.tools), lang=lang)
    field(out, "max_turns", event.max_turns, lang=lang)
    out.append(
        in_lang(lang, "prompt (the first user message):\n", "提示词（第一条用户消息）：\n"),
        style=LABEL,
    )
    out.append_text(folded_text(event.prompt, lang=lang))
    system = event.request_params.get("system")
    if system:
        out.append(
            "\n\n" + in_lang(lang, "system", "系统提示词") + colon(lang).rstrip() + "\n",
            style=LABEL,
        )
        out.append_text(
            folded_text(system if isinstance(system, str) else as_json(system), "dim", lang=lang)
        )
    return out


def render_turn_start(index: StepIndex, step: int, event: TurnStarted, lang: str) -> Text:
    out = title("turn_start", lang, in_lang(lang, f"turn {event.turn}", f"第{event.turn}轮"))
    field(out, "state.messages", event.message_count, "bold", lang)
    out.append(
        in_lang(
            lang,
            "The top of while (true): the turn begins with the whole internal history.\n",
            "while (true) 的开头：这一轮从完整的内部消息历史开始。\n",
        )
    )
    return out


def render_response(index: StepIndex, step: int, event: ResponseReceived, lang: str) -> Text:
    out = title("response", lang, request_label(event.request_index, lang))
    field(out, "message.id", event.message_id, lang=lang)
    field(out, "stop_reason", event.stop_reason, "bold", lang)
    usage = ", ".join(f"{k} {v}" for k, v in event.usage.items() if v)
    field(out, in_lang(lang, "usage", "用量"), usage, lang=lang)
    tokens = tokens_of(event.usage)
    if tokens is not None and (tokens.cache_read or tokens.cache_creation):
        # What the model read is the cache too: input_tokens alone is only the fresh tail.
        field(out, in_lang(lang, "tokens", "token 数"), tokens_text(tokens, lang), lang=lang)
    latency = f"{event.latency_ms} ms" if event.latency_ms is not None else "?"
    field(
        out,
        in_lang(lang, "latency", "耗时"),
        in_lang(
            lang,
            f"{latency}, attempts {event.attempts}",
            f"{latency}，HTTP 尝试{event.attempts}次",
        ),
        lang=lang,
    )
    found = context.find_messages(index.reader, event.assistant_uuids, index.positions[step])
    count = len(event.assistant_uuids)
    noun = "message" if count == 1 else "messages"
    out.append(
        in_lang(
            lang,
            f"\n{count} internal assistant {noun} (one per content block):\n",
            f"\n变成{count}条内部 assistant 消息（每个内容块一条）：\n",
        ),
        style=LABEL,
    )
    for uuid in event.assistant_uuids:
        message = found.get(uuid)
        column = f"  {uuid[:8]}  "
        out.append(column, style="dim")
        blocks = message.content if message and isinstance(message.content, list) else [None]
        for block in blocks:  # (a text block's later lines stay under its first)
            out.append_text(hanging(block_text(block, lang, width=200, full=True), len(column)))
        out.append("\n")
    return out


def tokens_text(tokens: Tokens, lang: str) -> str:
    """The four counts of one response, as the transcript or API log recorded them."""
    return in_lang(
        lang,
        f"input {tokens.input:,} + cache read {tokens.cache_read:,} + cache write "
        f"{tokens.cache_creation:,} = {tokens.prompt:,} read; output {tokens.output:,}",
        f"输入 {tokens.input:,} + 缓存读取 {tokens.cache_read:,} + 缓存写入 "
        f"{tokens.cache_creation:,} = 共读入 {tokens.prompt:,}；输出 {tokens.output:,}",
    )


def render_follow_up(index: StepIndex, step: int, event: FollowUpDecided, lang: str) -> Text:
    out = title("follow_up", lang)
    out.append("needsFollowUp = ", style=LABEL)
    out.append(
        str(event.needs_follow_up).lower(),
        style="bold green" if event.needs_follow_up else "bold red",
    )
    out.append("\n")
    field(out, "stop_reason", event.stop_reason, lang=lang)
    if event.forced:
        field(out, in_lang(lang, "forced by the scenario", "由场景强制"), "true", "bold red", lang)
    out.append(
        in_lang(
            lang,
            f"tool_use blocks: {len(event.tool_use_ids)}\n",
            f"tool_use 块：{len(event.tool_use_ids)}个\n",
        ),
        style=LABEL,
    )
    uses = context.find_tool_uses(index.reader, event.tool_use_ids, index.positions[step])
    for tool_id in event.tool_use_ids:
        block = uses.get(tool_id, {"type": "tool_use", "id": tool_id})
        out.append("  ")
        out.append_text(block_text(block, lang, width=200, full=True))
        out.append("\n")
    out.append("\n")
    out.append(
        in_lang(
            lang,
            "any tool_use → run the tools and loop again; none → the loop ends.",
            "有 tool_use → 执行工具，再来一轮；没有 → 循环结束。",
        ),
        style="dim",
    )
    return out


def render_max_turns(index: StepIndex, step: int, event: MaxTurnsChecked, lang: str) -> Text:
    out = title("max_turns_check", lang)
    if event.max_turns is None:
        out.append(
            f"next_turn_count {event.next_turn_count}; max_turns" + colon(lang), style="bold"
        )
        out.append(in_lang(lang, "not set, go on\n", "未设置，继续\n"), style="green")
        return out
    out.append(
        f"next_turn_count ({event.next_turn_count}) > max_turns ({event.max_turns})"
        f"  →  {str(event.exceeded).lower()}\n",
        style="bold",
    )
    if event.exceeded:
        out.append(
            in_lang(
                lang,
                "stop: max_turns reached. This turn's results are already in the "
                "transcript, but no next state is built, so no request carries "
                "them.\n",
                "停止：达到 max_turns。本轮的结果已经交给调用方、进了会话记录，但不再构建"
                "下一个状态，也就没有请求会把它们带给 AI。\n",
            ),
            style="bold red",
        )
    else:
        out.append(
            in_lang(
                lang,
                "go on: the next state is built (appending)\n",
                "继续：接下来构建下一个状态（追加）\n",
            ),
            style="green",
        )
    return out


def render_terminal(index: StepIndex, step: int, event: SessionEnded, lang: str) -> Text:
    out = title("terminal", lang)
    field(
        out,
        in_lang(lang, "reason", "结束原因"),
        event.reason,
        "bold green" if event.reason == "completed" else "bold red",
        lang,
    )
    field(out, "turn_count", event.turn_count, lang=lang)
    field(out, in_lang(lang, "messages", "消息数"), event.message_count, lang=lang)
    if event.error:
        out.append(in_lang(lang, "error", "错误") + colon(lang) + "\n", style=LABEL)
        out.append_text(folded_text(event.error, "red", lang=lang))
    last = _last_messages(index, step)
    if last:
        if not out.plain.endswith("\n"):
            out.append("\n")
        out.append(
            in_lang(
                lang,
                "the loop's last message before it returned:\n",
                "循环返回前追加的最后一条消息：\n",
            ),
            style=LABEL,
        )
        for message in last:
            out.append("  ")
            out.append_text(_message_text(message, lang))
            out.append("\n")
    if event.reason == "model_error":
        if not out.plain.endswith("\n"):
            out.append("\n")
        out.append(
            in_lang(
                lang,
                "model_error is tracer's name for this end. Claude Code 2.1.88 adds the same \"API "
                'Error: …" assistant message and returns completed (query.ts: the last message is '
                "an API error); it returns model_error only when the model call throws.\n",
                "model_error 是 tracer 给这种结束起的名字。Claude Code 2.1.88 同样追加一条“API "
                "Error: …”assistant 消息，然后返回 completed（query.ts：最后一条消息是 API 错误）；"
                "只有调用 AI 的过程抛出异常时，它才返回 model_error。\n",
            ),
            style="dim",
        )
    return out


def _last_messages(index: StepIndex, step: int) -> list[MessageRecorded]:
    """The synthetic messages the loop added between the step before ``step`` and it: the
    ``[Request interrupted by user for tool use]`` message of an aborted turn, the
    ``max_turns_reached`` attachment, the ``API Error: …`` message."""
    end = index.positions[step]
    start = index.positions[step - 1] + 1 if step > 0 else 0
    found = []
    for i in range(start, end):
        if index.reader.kind_of(i) != "message":
            continue
        message = index.reader[i]
        if not isinstance(message, MessageRecorded):  # its kind says it is one
            continue
        if message.origin in ("synthetic", "attachment") and not (
            message.type == "user" and isinstance(message.content, list)
        ):
            found.append(message)
    return found


def _message_text(message: MessageRecorded, lang: str) -> Text:
    if message.type == "attachment":
        attachment = json.dumps(message.attachment, ensure_ascii=False)
        return Text(f"attachment {attachment}", style="yellow")
    content = message.content
    if isinstance(content, list):
        content = "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    role = in_lang(lang, message.type, "用户消息" if message.type == "user" else "assistant 消息")
    return Text(f"{role}{colon(lang)}{content}", style="yellow")
