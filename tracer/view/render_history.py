"""③ 追加 (appending) and ④ 重新发送 (resending) as Rich text: the history grows, and is sent whole.

Appending builds the next state's messages, ``[...messagesForQuery, ...assistantMessages,
...toolResults]``: the view folds the rows already there and lights the ones that joined. Resending
sends that whole history again, normalized to the API's shape: the view folds the prefix a
request shares with the previous one and lights the new tail, so the lesson shows (the API keeps
no history between requests: everything is resent), and sparklines show the bytes and tokens
growing request by request. Request 1 is called the first send, since nothing is *re*sent yet.
"""

from __future__ import annotations

from rich.text import Text

from tracer.trace.events import MessageRecorded
from tracer.view import context
from tracer.view.attempts import attempt_rows, attempts_text, worth_showing
from tracer.view.fold import folded, is_unfolded, key_hint, short
from tracer.view.i18n import colon, in_lang
from tracer.view.render_pairing import pairing_text
from tracer.view.render_parts import (
    LABEL,
    LIT,
    block_text,
    field,
    indented,
    request_label,
    title,
)
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import HistoryAppended, RequestSent

SPARK = "▁▂▃▄▅▆▇█"


def render_appending(index: StepIndex, step: int, event: HistoryAppended, lang: str) -> Text:
    out = title("appending", lang)
    out.append(in_lang(lang, "messages", "消息数") + colon(lang), style="bold")
    out.append(f"{event.before_count} → {event.after_count}", style="bold")
    out.append(
        in_lang(lang, "    API: ", "    API 消息数：")
        + f"{event.api_before_count} → {event.api_after_count}\n"
    )
    out.append(
        in_lang(
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
                in_lang(
                    lang, f"  ⋯ {missing} older not listed\n", f"  ⋯ 更早的{missing}条未列出\n"
                ),
                style="dim",
            )
        for number, earlier in enumerate(old, start=event.before_count - len(old) + 1):
            out.append(f"  {number:>3}  {earlier.type:<10} {earlier.uuid[:8]}  ", style="dim")
            out.append_text(_message_line(earlier, lang))
            out.append("\n")
    elif event.before_count:
        out.append(
            in_lang(
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
        return Text(in_lang(lang, "(not found)", "（未找到）"), style="dim")
    content = message.content
    if isinstance(content, list):
        return Text(" ").join(block_text(b, lang, width=60) for b in content)
    if content is None:
        return Text(short(message.attachment or {}, 60), style="dim")
    return Text(short(content, 60))


def render_resending(index: StepIndex, step: int, event: RequestSent, lang: str) -> Text:
    out = title("resending", lang, request_label(event.request_index, lang))
    if event.request_index == 1:
        # Step ④ of the journey, but nothing is *re*sent yet: the first request opens the loop.
        out.append(
            in_lang(
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
        in_lang(lang, "API messages", "API 消息数"),
        in_lang(
            lang,
            f"{event.message_count}  (internal {event.internal_count})",
            f"{event.message_count}（内部列表{event.internal_count}条）",
        ),
        lang=lang,
    )
    field(out, in_lang(lang, "bytes", "字节数"), f"{event.bytes:,}", lang=lang)
    if event.params:
        keys = ", ".join(k for k in event.params)
        field(out, in_lang(lang, "parameters", "参数"), keys, "dim", lang)
    else:
        field(
            out,
            in_lang(lang, "parameters", "参数"),
            in_lang(lang, "same as before", "与上一次相同"),
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
            in_lang(
                lang,
                f"  ⋯ same {same} {noun} as request {request} (folded{key_hint('; o: unfold')})\n",
                f"  ⋯ 与第{request}次请求相同的{same}条消息（已折叠{key_hint('，按 o 展开')}）\n",
            ),
            style="dim",
        )
    found = context.find_messages(index.reader, context.tail_uuids(event.tail), where)
    marked = getattr(event, "cache_control", None)
    for number, (role, blocks) in enumerate(
        context.resolve_tail(event.tail, found), start=event.prefix_len + 1
    ):
        out.append(f"  {number}. {role}", style=LIT)
        out.append(in_lang(lang, "  new\n", "  新增\n"), style=LIT)
        for count, block in enumerate(blocks, start=1):
            out.append_text(indented(block_text(block, lang, width=70), 5))
            if marked and number == event.message_count and count == len(blocks):
                out.append("  ⚑ cache_control", style=LABEL)
            out.append("\n")
    out.append("]\n", style="bold")
    if marked:
        _cache_breakpoint(out, event, lang)
    out.append("\n")
    history = context.request_history(index, step)
    if history:
        out.append(
            in_lang(lang, "the whole history, resent each time:\n", "每次都重新发送整个历史：\n"),
            style=LABEL,
        )
        first, last = history[0].request_index, history[-1].request_index
        out.append(in_lang(lang, "  bytes         ", "  字节数        "))
        out.append(f"{sparkline([p.bytes for p in history])}  ")
        out.append(f"{history[0].bytes:,} → {history[-1].bytes:,}\n")
        tokens = [p.input_tokens for p in history]
        if any(t is not None for t in tokens):
            # With a cache the prompt is input + cache read + cache write (tracer.trace.tokens).
            label = (
                in_lang(lang, "  prompt tokens ", "  输入 token   ")
                if any(p.cached for p in history)
                else "  input_tokens  "
            )
            out.append(f"{label}{sparkline(tokens)}  ")
            out.append(f"{_num(tokens[0])} → {_num(tokens[-1])}\n")
        span = (
            in_lang(lang, f"  requests {first}…{last}", f"  第{first}–{last}次请求")
            if first != last
            else "  " + request_label(first, lang)
        )
        out.append(span, style="dim")
        out.append("\n")
    return out


def _cache_breakpoint(out: Text, event: RequestSent, lang: str) -> None:
    """Where the request's one ``cache_control`` breakpoint sits (2.1.88's
    ``addCacheBreakpoints``: the last block of the newest message), and what it buys."""
    field(
        out,
        in_lang(lang, "cache breakpoint", "缓存断点"),
        in_lang(
            lang,
            f"the last block of message {event.message_count} (⚑)",
            f"第{event.message_count}条消息的最后一个块（⚑）",
        ),
        LIT,
        lang,
    )
    out.append(
        in_lang(
            lang,
            "Everything up to here may be read from the cache next time: the next request "
            "resends it all, and moves the breakpoint to its own newest block.\n",
            "到这里为止的内容，下一次请求可以从缓存读取：下一次请求仍会全部重新发送，"
            "并把断点移到它自己最新的块上。\n",
        ),
        style="italic",
    )


def sparkline(values: list[int | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return ""
    top = max(known) or 1
    return "".join(
        " " if v is None else SPARK[min(len(SPARK) - 1, v * len(SPARK) // (top + 1))]
        for v in values
    )


def _num(n: int | None) -> str:
    return "?" if n is None else f"{n:,}" if n >= 10_000 else str(n)


def _unfolded_prefix(out: Text, index: StepIndex, step: int, count: int, lang: str) -> None:
    """The messages a request shares with the previous one, one by one (the fold opened)."""
    from tracer.view.raw import request_body

    body = request_body(index, step) or {}
    for number, message in enumerate(body.get("messages", [])[:count], start=1):
        out.append(f"  {number}. {message.get('role', '?')}", style="bold")
        out.append(in_lang(lang, "  sent before\n", "  之前发过\n"), style="dim")
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            out.append_text(indented(block_text(block, lang, width=70), 5))
            out.append("\n")
