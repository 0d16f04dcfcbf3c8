"""Station 2 as Rich text: the permission gate, then ② 包装 (wrapping) puts the ``tool_result``
block in a user message.

Wrapping is ``create_user_message(content, tool_use_result, source_tool_assistant_uuid)``, as
``toolExecution.ts``'s ``addToolResult`` does for a call that returned: the block goes in
``content`` (sent to the AI), the raw output in ``tool_use_result`` (kept beside, never sent). A
failure is wrapped here too, and the view says which other 2.1.88 path builds it
(:mod:`tracer.chapter.error_paths`). A refused permission is shown before, with the words the AI is
told.
"""

from __future__ import annotations

from rich.text import Text

from tracer.chapter.error_paths import error_path
from tracer.trace.events import MessageRecorded
from tracer.view import context
from tracer.view.fold import folded_text
from tracer.view.i18n import colon, in_lang, value_word
from tracer.view.render_output import failed_raw_note, raw_output_text
from tracer.view.render_parts import LABEL, block_text, field, indented, title, tool_title
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import PermissionDecided, ResultWrapped


def render_permission(index: StepIndex, step: int, event: PermissionDecided, lang: str) -> Text:
    out = title("permission", lang, f"{event.tool} {event.tool_use_id}")
    allowed = event.decision in ("allow", "approve")
    field(
        out,
        in_lang(lang, "decision", "决定"),
        value_word(event.decision, lang),
        "bold green" if allowed else "bold red",
        lang,
    )
    field(out, in_lang(lang, "source", "来源"), value_word(event.source, lang), lang=lang)
    if event.rule:
        field(out, in_lang(lang, "rule", "规则"), event.rule, lang=lang)
    if event.feedback:
        field(out, in_lang(lang, "feedback", "反馈"), event.feedback, "bold yellow", lang)
    if event.message:
        out.append(in_lang(lang, "what the model is told:\n", "AI 收到的内容：\n"), style=LABEL)
        out.append_text(folded_text(event.message, "yellow", lang=lang))
    return out


def render_wrapping(index: StepIndex, step: int, event: ResultWrapped, lang: str) -> Text:
    out = tool_title("wrapping", lang, f"{event.tool} {event.tool_use_id}")
    where = index.positions[step]
    found = context.find_messages(
        index.reader, [event.message_uuid, event.source_tool_assistant_uuid], where
    )
    message = found.get(event.message_uuid)
    out.append(
        "create_user_message(content, tool_use_result, source_tool_assistant_uuid)\n", style="dim"
    )
    path = error_path(getattr(event, "error_kind", None))
    if path is None or path.via_add_tool_result:
        out.append(
            in_lang(
                lang,
                "  (the book's createUserMessage, called from addToolResult)\n\n",
                "  （即书中 addToolResult 调用的 createUserMessage）\n\n",
            ),
            style="dim",
        )
    else:
        # One voice with the debug console and the guide: say which 2.1.88 path builds it.
        out.append(
            in_lang(
                lang,
                f"  tracer wraps this failure here too; in 2.1.88 {path.en}.\n\n",
                f"  tracer 在这里同样包装了这个失败结果；在 2.1.88 中，{path.zh}。\n\n",
            ),
            style="yellow",
        )
    out.append('{ "type": "user",\n', style="bold")
    out.append('  "uuid": ', style=LABEL)
    out.append(f'"{event.message_uuid}",\n')
    out.append('  "source_tool_assistant_uuid": ', style=LABEL)
    out.append(f'"{event.source_tool_assistant_uuid}"', style="yellow")
    out.append(",\n")
    source = found.get(event.source_tool_assistant_uuid)
    if isinstance(source, MessageRecorded) and isinstance(source.content, list):
        out.append("     ↳ ", style="dim")
        out.append_text(block_text(source.content[0] if source.content else None, lang, 80))
        out.append("\n")
    out.append('  "content": [\n', style=LABEL)
    blocks = message.content if message and isinstance(message.content, list) else []
    for block in blocks:
        out.append_text(indented(block_text(block, lang, width=70), 5))
        out.append("\n")
    out.append("  ],\n", style=LABEL)
    out.append('  "tool_use_result": ', style=LABEL)
    out.append(
        in_lang(lang, "(kept beside the message, never sent)\n", "（留在消息旁，不发送）\n"),
        style="dim",
    )
    if message is not None:
        result = index.reader.tool_use_result(message)  # written once, on the tool_run event
        out.append_text(raw_output_text(result, lang))
        if note := failed_raw_note(getattr(event, "error_kind", None), result, lang):
            out.append("\n" + note, style="yellow")
    out.append("\n}\n", style="bold")
    if event.feedback:
        out.append(in_lang(lang, "feedback", "反馈（acceptFeedback）") + colon(lang), style=LABEL)
        out.append(event.feedback + "\n", style="bold yellow")
    return out
