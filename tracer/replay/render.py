"""A step as Rich text: what it produced, and what it changed.

One function per stage; :func:`render_step` picks it. The four steps of the result's trip (the
book's 翻译, 包装, 追加, 重新发送) get the most care:
``resending`` folds the prefix a request shares with the previous one and lights the new tail
(the whole history resent, made visible), ``appending`` lights the rows that joined the history.
The tool steps (``tool_run``, ``mapping``, ``wrapping``) live in :mod:`render_tools`. Labels are
Chinese in zh mode, with full-width colons; request 1 is called the first send, not a resend.

These functions only read the trace through :mod:`context`; nothing here knows about Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from tracer.replay import context
from tracer.replay.attempts import attempt_rows, attempts_text, worth_showing
from tracer.replay.fold import as_json, folded, folded_text, is_unfolded, key_hint, short
from tracer.replay.i18n import colon, stage_title, value_word
from tracer.replay.render_pairing import pairing_text
from tracer.replay.render_tools import (
    block_text,
    indented,
    render_mapping,
    render_tool_run,
    render_wrapping,
    say,
)
from tracer.replay.steps import StepIndex
from tracer.trace.events import MessageRecorded
from tracer.trace.tokens import Tokens, tokens_of

LIT = "bold black on #e8d44d"
"""What changed at this step: new rows, the new tail."""
LABEL = "bold cyan"
SPARK = "▁▂▃▄▅▆▇█"


def title(stage: str, lang: str, extra: str = "") -> Text:
    out = Text(stage_title(stage, lang), style="bold underline")
    if extra:
        # In zh a full-width space: two ASCII spaces would sit between two Chinese words.
        out.append(("\u3000" if lang == "zh" else "  ") + extra, style="bold")
    out.append("\n\n")
    return out


def field(out: Text, label: str, value: Any, style: str = "", lang: str = "en") -> None:
    """``label: value`` on one line (a full-width colon in Chinese)."""
    out.append(label + colon(lang), style=LABEL)
    out.append(f"{value}\n", style=style)


def render_session(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("session", lang, (event.title or {}).get(lang, "") if event.title else "")
    field(out, say(lang, "model", "AI"), event.model, lang=lang)
    field(out, say(lang, "tools", "可用工具"), ", ".join(event.tools), lang=lang)
    field(out, "max_turns", event.max_turns, lang=lang)
    out.append(
        say(lang, "prompt (the first user message):\n", "提示词（第一条用户消息）：\n"),
        style=LABEL,
    )
    out.append_text(folded_text(event.prompt))
    system = event.request_params.get("system")
    if system:
        out.append(
            "\n\n" + say(lang, "system", "系统提示词") + colon(lang).rstrip() + "\n", style=LABEL
        )
        out.append_text(folded_text(system if isinstance(system, str) else as_json(system), "dim"))
    return out


def render_turn_start(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("turn_start", lang, say(lang, f"turn {event.turn}", f"第{event.turn}轮"))
    field(out, "state.messages", event.message_count, "bold", lang)
    out.append(
        say(
            lang,
            "The top of while (true): the turn begins with the whole internal history.\n",
            "while (true) 的开头：这一轮从完整的内部消息历史开始。\n",
        )
    )
    return out


def sparkline(values: list[int | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return ""
    top = max(known) or 1
    return "".join(
        " " if v is None else SPARK[min(len(SPARK) - 1, v * len(SPARK) // (top + 1))]
        for v in values
    )


def render_resending(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("resending", lang, request_label(event.request_index, lang))
    if event.request_index == 1:
        # Step ④ of the journey, but nothing is *re*sent yet: the first request opens the loop.
        out.append(
            say(
                lang,
                "The first send: no tool result exists yet. Every later request "
                "resends this history plus what the turns added.\n\n",
                "首次发送：此时还没有任何工具结果。之后的每次请求都会把这段历史连同"
                "每轮新增的消息重新发送。\n\n",
            ),
            style="italic",
        )
    where = index.positions[step]
    field(
        out,
        say(lang, "API messages", "API 消息数"),
        say(
            lang,
            f"{event.message_count}  (internal {event.internal_count})",
            f"{event.message_count}（内部列表{event.internal_count}条）",
        ),
        lang=lang,
    )
    field(out, say(lang, "bytes", "字节数"), f"{event.bytes:,}", lang=lang)
    if event.params:
        keys = ", ".join(k for k in event.params)
        field(out, say(lang, "parameters", "参数"), keys, "dim", lang)
    else:
        field(
            out,
            say(lang, "parameters", "参数"),
            say(lang, "same as before", "与上一次相同"),
            "dim",
            lang,
        )
    rows = attempt_rows(index, step)
    if worth_showing(rows):
        out.append("\n")
        out.append_text(attempts_text(rows, lang))
    if (patch := pairing_text(index, step, event, lang)) is not None:
        out.append("\n")
        out.append_text(patch)
    out.append("\nmessages: [\n", style="bold")
    if event.prefix_len and is_unfolded():
        _unfolded_prefix(out, index, step, event.prefix_len, lang)
    elif event.prefix_len:
        same, request = event.prefix_len, event.prefix_request
        noun = "message" if same == 1 else "messages"
        out.append(
            say(
                lang,
                f"  ⋯ same {same} {noun} as request {request} (folded{key_hint('; o: unfold')})\n",
                f"  ⋯ 与第{request}次请求相同的{same}条消息（已折叠{key_hint('，按 o 展开')}）\n",
            ),
            style="dim",
        )
    found = context.find_messages(index.reader, context.tail_uuids(event.tail), where)
    for number, (role, blocks) in enumerate(
        context.resolve_tail(event.tail, found), start=event.prefix_len + 1
    ):
        out.append(f"  {number}. {role}", style=LIT)
        out.append(say(lang, "  new\n", "  新增\n"), style=LIT)
        for block in blocks:
            out.append_text(indented(block_text(block, lang, width=70), 5))
            out.append("\n")
    out.append("]\n\n", style="bold")
    history = context.request_history(index, step)
    if history:
        out.append(
            say(lang, "the whole history, resent each time:\n", "每次都重新发送整个历史：\n"),
            style=LABEL,
        )
        first, last = history[0].request_index, history[-1].request_index
        out.append(say(lang, "  bytes         ", "  字节数        "))
        out.append(f"{sparkline([p.bytes for p in history])}  ")
        out.append(f"{history[0].bytes:,} → {history[-1].bytes:,}\n")
        tokens = [p.input_tokens for p in history]
        if any(t is not None for t in tokens):
            # With a cache the prompt is input + cache read + cache write (tracer.trace.tokens).
            label = (
                say(lang, "  prompt tokens ", "  输入 token   ")
                if any(p.cached for p in history)
                else "  input_tokens  "
            )
            out.append(f"{label}{sparkline(tokens)}  ")
            out.append(f"{_num(tokens[0])} → {_num(tokens[-1])}\n")
        span = (
            say(lang, f"  requests {first}…{last}", f"  第{first}–{last}次请求")
            if first != last
            else "  " + request_label(first, lang)
        )
        out.append(span, style="dim")
        out.append("\n")
    return out


def _num(n: int | None) -> str:
    return "?" if n is None else f"{n:,}" if n >= 10_000 else str(n)


def tokens_text(tokens: Tokens, lang: str) -> str:
    """The four counts of one response, as the transcript or API log recorded them."""
    return say(
        lang,
        f"input {tokens.input:,} + cache read {tokens.cache_read:,} + cache write "
        f"{tokens.cache_creation:,} = {tokens.prompt:,} read; output {tokens.output:,}",
        f"输入 {tokens.input:,} + 缓存读取 {tokens.cache_read:,} + 缓存写入 "
        f"{tokens.cache_creation:,} = 共读入 {tokens.prompt:,}；输出 {tokens.output:,}",
    )


def request_label(number: int, lang: str) -> str:
    return say(lang, f"request {number}", f"第{number}次请求")


def _unfolded_prefix(out: Text, index: StepIndex, step: int, count: int, lang: str) -> None:
    """The messages a request shares with the previous one, one by one (the fold opened)."""
    from tracer.replay.raw import request_body

    body = request_body(index, step) or {}
    for number, message in enumerate(body.get("messages", [])[:count], start=1):
        out.append(f"  {number}. {message.get('role', '?')}", style="bold")
        out.append(say(lang, "  sent before\n", "  之前发过\n"), style="dim")
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            out.append_text(indented(block_text(block, lang, width=70), 5))
            out.append("\n")


def render_response(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("response", lang, request_label(event.request_index, lang))
    field(out, "message.id", event.message_id, lang=lang)
    field(out, "stop_reason", event.stop_reason, "bold", lang)
    usage = ", ".join(f"{k} {v}" for k, v in event.usage.items() if v)
    field(out, say(lang, "usage", "用量"), usage, lang=lang)
    tokens = tokens_of(event.usage)
    if tokens is not None and (tokens.cache_read or tokens.cache_creation):
        # What the model read is the cache too: input_tokens alone is only the fresh tail.
        field(out, say(lang, "tokens", "token 数"), tokens_text(tokens, lang), lang=lang)
    latency = f"{event.latency_ms} ms" if event.latency_ms is not None else "?"
    field(
        out,
        say(lang, "latency", "耗时"),
        say(
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
        say(
            lang,
            f"\n{count} internal assistant {noun} (one per content block):\n",
            f"\n变成{count}条内部 assistant 消息（每个内容块一条）：\n",
        ),
        style=LABEL,
    )
    for uuid in event.assistant_uuids:
        message = found.get(uuid)
        out.append(f"  {uuid[:8]}  ", style="dim")
        blocks = message.content if message and isinstance(message.content, list) else [None]
        for block in blocks:
            out.append_text(block_text(block, lang, width=200, full=True))
        out.append("\n")
    return out


def render_follow_up(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("follow_up", lang)
    out.append("needsFollowUp = ", style=LABEL)
    out.append(
        str(event.needs_follow_up).lower(),
        style="bold green" if event.needs_follow_up else "bold red",
    )
    out.append("\n")
    field(out, "stop_reason", event.stop_reason, lang=lang)
    if event.forced:
        field(out, say(lang, "forced by the scenario", "由场景强制"), "true", "bold red", lang)
    out.append(
        say(
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
        say(
            lang,
            "any tool_use → run the tools and loop again; none → the loop ends.",
            "有 tool_use → 执行工具，再来一轮；没有 → 循环结束。",
        ),
        style="dim",
    )
    return out


def render_permission(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("permission", lang, f"{event.tool} {event.tool_use_id}")
    allowed = event.decision in ("allow", "approve")
    field(
        out,
        say(lang, "decision", "决定"),
        value_word(event.decision, lang),
        "bold green" if allowed else "bold red",
        lang,
    )
    field(out, say(lang, "source", "来源"), value_word(event.source, lang), lang=lang)
    if event.rule:
        field(out, say(lang, "rule", "规则"), event.rule, lang=lang)
    if event.feedback:
        field(out, say(lang, "feedback", "反馈"), event.feedback, "bold yellow", lang)
    if event.message:
        out.append(say(lang, "what the model is told:\n", "AI 收到的内容：\n"), style=LABEL)
        out.append_text(folded_text(event.message, "yellow"))
    return out


def render_appending(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("appending", lang)
    out.append(say(lang, "messages", "消息数") + colon(lang), style="bold")
    out.append(f"{event.before_count} → {event.after_count}", style="bold")
    out.append(
        say(lang, "    API: ", "    API 消息数：")
        + f"{event.api_before_count} → {event.api_after_count}\n"
    )
    out.append(
        say(
            lang,
            f"+{event.assistant_count} assistant, +{event.tool_result_count} "
            "tool_result (internal list)\n\n",
            f"+{event.assistant_count}条 assistant 消息，+{event.tool_result_count}条 "
            "tool_result 消息（内部列表）\n\n",
        ),
        style="dim",
    )
    out.append("[...messagesForQuery, ...assistantMessages, ...toolResults]\n", style=LABEL)
    if event.before_count and is_unfolded():
        old = context.history_before(
            index.reader, index.positions[step], event.before_count, event.new_uuids
        )
        if len(old) < event.before_count:
            missing = event.before_count - len(old)
            out.append(
                say(lang, f"  ⋯ {missing} older not listed\n", f"  ⋯ 更早的{missing}条未列出\n"),
                style="dim",
            )
        for number, message in enumerate(old, start=event.before_count - len(old) + 1):
            out.append(f"  {number:>3}  {message.type:<10} {message.uuid[:8]}  ", style="dim")
            out.append_text(_message_line(message, lang))
            out.append("\n")
    elif event.before_count:
        out.append(
            say(
                lang,
                f"  1–{event.before_count}  unchanged (folded{key_hint('; o: unfold')})\n",
                f"  1–{event.before_count}  未变（已折叠{key_hint('，按 o 展开')}）\n",
            ),
            style="dim",
        )
    found = context.find_messages(index.reader, event.new_uuids, index.positions[step])
    for number, uuid in enumerate(event.new_uuids, start=event.before_count + 1):
        message = found.get(uuid)
        out.append(f"  {number:>3}  ", style=LIT)
        kind = message.type if message else "?"
        out.append(f"{kind:<10} {uuid[:8]}  ", style=LIT)
        out.append_text(_message_line(message, lang))
        out.append("\n")
    return out


def _message_line(message: MessageRecorded | None, lang: str) -> Text:
    """One history row's summary: one line even when the view is unfolded."""
    with folded():
        return _summary(message, lang)


def _summary(message: MessageRecorded | None, lang: str) -> Text:
    if message is None:
        return Text(say(lang, "(not found)", "（未找到）"), style="dim")
    content = message.content
    if isinstance(content, list):
        return Text(" ").join(block_text(b, lang, width=60) for b in content)
    if content is None:
        return Text(short(message.attachment or {}, 60), style="dim")
    return Text(short(content, 60))


def render_max_turns(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("max_turns_check", lang)
    if event.max_turns is None:
        out.append(
            f"next_turn_count {event.next_turn_count}; max_turns" + colon(lang), style="bold"
        )
        out.append(say(lang, "not set, go on\n", "未设置，继续\n"), style="green")
        return out
    out.append(
        f"next_turn_count ({event.next_turn_count}) > max_turns ({event.max_turns})"
        f"  →  {str(event.exceeded).lower()}\n",
        style="bold",
    )
    if event.exceeded:
        out.append(
            say(
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
            say(
                lang,
                "go on: the next state is built (appending)\n",
                "继续：接下来构建下一个状态（追加）\n",
            ),
            style="green",
        )
    return out


def render_terminal(index: StepIndex, step: int, event: Any, lang: str) -> Text:
    out = title("terminal", lang)
    field(
        out,
        say(lang, "reason", "结束原因"),
        event.reason,
        "bold green" if event.reason == "completed" else "bold red",
        lang,
    )
    field(out, "turn_count", event.turn_count, lang=lang)
    field(out, say(lang, "messages", "消息数"), event.message_count, lang=lang)
    if event.error:
        out.append(say(lang, "error", "错误") + colon(lang) + "\n", style=LABEL)
        out.append_text(folded_text(event.error, "red"))
    return out


RENDERERS: dict[str, Callable[[StepIndex, int, Any, str], Text]] = {
    "session": render_session,
    "turn_start": render_turn_start,
    "resending": render_resending,
    "response": render_response,
    "follow_up": render_follow_up,
    "permission": render_permission,
    "tool_run": render_tool_run,
    "mapping": render_mapping,
    "wrapping": render_wrapping,
    "appending": render_appending,
    "max_turns_check": render_max_turns,
    "terminal": render_terminal,
}


def render_step(index: StepIndex, step: int, lang: str) -> Text:
    """The stage view of ``step``; unknown stages show their raw record."""
    event = index.event(step)
    renderer = RENDERERS.get(index.stage(step))
    if renderer is None:
        out = title(index.stage(step), lang)
        out.append_text(folded_text(as_json(getattr(event, "raw", event))))
    else:
        out = renderer(index, step, event, lang)
    notes = import_notes(index, step)
    if notes:
        out.append(say(lang, "\nnoted by the import:\n", "\n导入时的备注：\n"), style=LABEL)
        for note in notes:
            out.append(f"  [{getattr(note, 'topic', '?')}] ", style="bold")
            out.append(short(getattr(note, "text", ""), 200) + "\n")
    return out


def import_notes(index: StepIndex, step: int) -> list[Any]:
    """``import_note`` records written between the previous step and this one (imports only)."""
    start = index.positions[step - 1] + 1 if step else 0
    reader = index.reader
    return [
        reader[i] for i in range(start, index.positions[step]) if reader.kind_of(i) == "import_note"
    ]
