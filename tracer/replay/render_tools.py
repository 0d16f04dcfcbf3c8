"""The tool steps as Rich text: tool run, ① 翻译 (mapping), ② 包装 (wrapping).

Mapping is where the chapter's lesson starts: a tool's raw output (stdout, stderr and exit code;
a file; a diff) becomes one ``tool_result`` block (``mapToolResultToToolResultBlockParam`` in
Claude Code's tools, ``map_result`` here). Wrapping puts that block in a user message with
``create_user_message(content, tool_use_result, source_tool_assistant_uuid)``, as
``toolExecution.ts``'s ``addToolResult`` does for a call that returned; a failure is wrapped here
too, and the view says which other 2.1.88 path builds it (:mod:`tracer.error_paths`). Errors
(``is_error``, ``<tool_use_error>``) are lit, and ``<persisted-output>`` previews (output too
large, saved to a file) are explained.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from tracer.error_paths import error_path
from tracer.replay import context
from tracer.replay.fold import as_json, folded_text, is_unfolded, key_hint, short
from tracer.replay.i18n import colon, stage_title
from tracer.trace.events import MessageRecorded, ToolFinished

LABEL = "bold cyan"
ERROR = "bold white on #b03030"
_TAGS = re.compile(r"</?(tool_use_error|persisted-output)>")


def say(lang: str, en: str, zh: str) -> str:
    """Pick the English or Chinese wording."""
    return zh if lang == "zh" else en


def _title(stage: str, lang: str, extra: str) -> Text:
    out = Text(stage_title(stage, lang), style="bold underline")
    out.append(("\u3000" if lang == "zh" else "  ") + extra + "\n\n", style="bold")
    return out


def block_text(block: Any, lang: str, width: int = 60, full: bool = False) -> Text:
    """One content block in a line (or in full, folded): its type and what it holds."""
    if block is None:
        return Text(say(lang, "(missing)", "（缺失）"), style="dim")
    if isinstance(block, str):
        return Text(f'"{short(block, width)}"')
    kind = block.get("type", "?")
    full = full or is_unfolded()  # the reader asked to see everything
    out = Text(f"{kind} ", style="bold magenta")
    if kind == "text":
        out.append_text(
            folded_text(block.get("text", ""))
            if full
            else Text(short(block.get("text", ""), width))
        )
    elif kind == "thinking":
        thinking = block.get("thinking", "")
        out.append(
            thinking if is_unfolded() else short(thinking, width if not full else 400),
            style="dim italic",
        )
    elif kind == "tool_use":
        out.append(f"{block.get('name', '?')} ", style="bold")
        out.append(f"id={block.get('id', '?')} ", style="yellow")
        tool_input = block.get("input", {})
        out.append(as_json(tool_input) if is_unfolded() else short(tool_input, width))
    elif kind == "tool_result":
        error = block.get("is_error")
        out.append(f"→ {block.get('tool_use_id', '?')} ", style="yellow")
        if error:
            out.append("is_error ", style=ERROR)
        if is_unfolded():  # the whole content, on its own lines
            out.append("\n")
            out.append_text(content_text(block.get("content", "")))
        else:
            out.append(short(block.get("content", ""), width))
    else:
        out.append(short({k: v for k, v in block.items() if k != "type"}, width), style="dim")
    return out


def indented(text: Text, spaces: int) -> Text:
    """``text`` with every line indented (an unfolded block spans lines; they stay nested)."""
    pad = Text(" " * spaces)
    return Text("\n").join(pad + line for line in text.split("\n", allow_blank=True))


def content_text(content: Any) -> Text:
    """A ``tool_result``'s content, folded, with ``<tool_use_error>`` and persisted tags lit."""
    if isinstance(content, list):
        parts = [
            b.get("text", "") if isinstance(b, dict) and b.get("type") == "text" else as_json(b)
            for b in content
        ]
        content = "\n".join(parts)
    out = folded_text(str(content) if content is not None else "")
    out.highlight_regex(_TAGS, ERROR)
    return out


def raw_output_text(output: Any, lang: str) -> Text:
    """A tool's raw output: shell streams, a file, an edit's patch, or anything else as JSON."""
    out = Text()
    if isinstance(output, dict) and "stdout" in output:
        out.append("stdout:\n", style=LABEL)
        out.append_text(folded_text(output.get("stdout") or ""))
        if output.get("stderr"):
            out.append("\nstderr:\n", style=LABEL)
            out.append_text(folded_text(output["stderr"], "red"))
        code = output.get("exit_code")
        out.append("\nexit_code: ", style=LABEL)
        out.append(str(code), style="bold red" if code else "bold green")
        if output.get("interrupted"):
            out.append("  interrupted", style="bold red")
        return out
    if isinstance(output, dict) and isinstance(output.get("file"), dict):
        file = output["file"]
        first, last, total = line_range(file)
        out.append(
            say(
                lang,
                f"file: {file.get('filePath')}  lines {first}–{last} of {total}\n",
                f"文件：{file.get('filePath')}  第{first}–{last}行，共{total}行\n",
            ),
            style=LABEL,
        )
        out.append_text(folded_text(file.get("content", "")))
        return out
    if isinstance(output, dict) and "structuredPatch" in output:
        out.append(
            say(lang, "file", "文件") + colon(lang) + f"{output.get('filePath')}\n", style=LABEL
        )
        out.append_text(diff_text(output["structuredPatch"], lang))
        return out
    if isinstance(output, str):
        return folded_text(output)
    return folded_text(as_json(output))


def line_range(file: dict[str, Any]) -> tuple[Any, Any, Any]:
    """Read's ``(first, last, total)`` lines: ``numLines`` counts them, from ``startLine`` on."""
    start, count = file.get("startLine"), file.get("numLines")
    if isinstance(start, int) and isinstance(count, int):
        return start, start + count - 1, file.get("totalLines")
    return start, "?", file.get("totalLines")


def diff_text(hunks: list[dict[str, Any]], lang: str = "en") -> Text:
    """``structuredPatch`` hunks as a coloured unified diff."""
    out = Text()
    for hunk in hunks[:20]:
        out.append(
            f"@@ -{hunk.get('oldStart')},{hunk.get('oldLines')} "
            f"+{hunk.get('newStart')},{hunk.get('newLines')} @@\n",
            style="cyan",
        )
        for line in hunk.get("lines", [])[:60]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            out.append(line[:300] + "\n", style=style)
    if len(hunks) > 20:
        more = len(hunks) - 20
        out.append(
            say(lang, f"… {more} more hunks (folded)\n", f"… 另有{more}段改动（已折叠）\n"),
            style="dim italic",
        )
    return out


def render_tool_run(index: Any, step: int, event: Any, lang: str) -> Text:
    out = _title("tool_run", lang, f"{event.tool} {event.tool_use_id}")
    out.append(say(lang, "input", "输入") + colon(lang), style=LABEL)
    out.append(short(event.input, 200) + "\n")
    if event.duration_ms is not None:
        out.append(say(lang, "duration", "耗时") + colon(lang), style=LABEL)
        out.append(f"{event.duration_ms} ms\n")
    if event.is_error:
        out.append(
            say(lang, f"error ({event.error_kind})", f"出错（{event.error_kind}）") + "\n",
            style=ERROR,
        )
    out.append(
        say(
            lang,
            "\nraw output (becomes tool_use_result, never sent to the model):\n",
            "\n原始输出（成为 tool_use_result，不会发给 AI）：\n",
        ),
        style="bold",
    )
    out.append_text(raw_output_text(event.output, lang))
    if note := failed_raw_note(event.error_kind, event.output, lang):
        out.append("\n" + note, style="yellow")
    return out


def failed_raw_note(error_kind: str | None, output: Any, lang: str) -> str | None:
    """Where tracer's raw output of a failed command is not 2.1.88's, say so beside it."""
    if error_kind != "exit_code" or not isinstance(output, dict):
        return None
    return say(
        lang,
        "2.1.88 keeps no such object for a failed command: the non-zero exit throws, and its "
        'tool_use_result is the string "Error: Exit code N …" (the error\'s text). tracer keeps '
        "its own dict, so stdout, stderr and the exit code can be seen apart.\n",
        "2.1.88 不会为失败的命令留下这样的对象：非零退出码会抛出错误，tool_use_result 是一个字符串"
        "“Error: Exit code N …”（错误的文字）。tracer 保留自己的字典，好把 stdout、stderr 和退出码"
        "分开来看。\n",
    )


def render_mapping(index: Any, step: int, event: Any, lang: str) -> Text:
    out = _title("mapping", lang, f"{event.tool} {event.tool_use_id}")
    run = context.find_back(
        index.reader,
        index.positions[step],
        "tool_run",
        lambda e: getattr(e, "tool_use_id", None) == event.tool_use_id,
        limit=200,
    )
    if isinstance(run, ToolFinished):
        out.append(say(lang, "raw output:\n", "原始输出：\n"), style="bold")
        out.append_text(raw_output_text(run.output, lang))
        out.append("\n\n")
    out.append("        ⇓  ", style="bold")
    out.append(say(lang, "mapped to a tool_result block", "翻译成 tool_result 块"), style="bold")
    out.append(
        say(
            lang,
            key_hint("   (b: jump here and back)"),
            key_hint("（按 b 在此处与原始输出之间跳转）"),
        )
        + "\n\n",
        style="dim",
    )
    block = event.block
    out.append("{\n", style="bold")
    out.append('  "type": ', style=LABEL)
    out.append(f'"{block.get("type")}",\n')
    out.append('  "tool_use_id": ', style=LABEL)
    out.append(f'"{block.get("tool_use_id")}"', style="yellow")
    out.append(",\n")
    out.append('  "is_error": ', style=LABEL)
    if "is_error" in block:
        is_error = block["is_error"]
        out.append(str(is_error).lower(), style=ERROR if is_error else "green")
        out.append(",\n")
    else:
        out.append(
            say(lang, "(absent: prints as undefined)\n", "（没有这个字段：打印为 undefined）\n"),
            style="dim",
        )
    out.append('  "content": \n', style=LABEL)
    out.append_text(content_text(block.get("content")))
    out.append("\n}\n\n", style="bold")
    out.append(say(lang, "content length: ", "content length（内容长度）："), style=LABEL)
    out.append(f"{event.content_length}", style="bold")
    if event.mapped_length != event.content_length:
        out.append(
            say(
                lang,
                f"  (before persisting: {event.mapped_length})",
                f"（存入文件之前：{event.mapped_length}）",
            )
        )
    out.append("\n")
    if event.persisted:
        p = event.persisted
        out.append(
            say(
                lang,
                f"<persisted-output>: the output ({p.get('size')} chars) was over "
                f"{p.get('threshold')}, so it was saved to {p.get('path')} and the model "
                "gets a preview and the path instead.\n",
                f"<persisted-output>：输出（{p.get('size')}字符）超过上限"
                f"{p.get('threshold')}，已保存到 {p.get('path')}，AI 只拿到预览和路径。\n",
            ),
            style="yellow",
        )
        kept = kept_copy(index, p)
        if kept:  # the session's temporary folder is gone; the recorder kept a copy
            out.append(
                say(
                    lang,
                    f"That temporary file is gone; the copy kept with the recording: {kept}\n",
                    f"那个临时文件已删除；随录制保存的副本：{kept}\n",
                ),
                style="yellow",
            )
    if event.empty_replaced:
        out.append(
            say(
                lang,
                "Empty output was replaced by a sentence, so the model is never "
                "handed an empty result.\n",
                "空输出被替换成一句说明，AI 不会收到空结果。\n",
            ),
            style="yellow",
        )
    return out


def kept_copy(index: Any, persisted: dict[str, Any]) -> str | None:
    """Where the recorder kept a persisted output: ``<name>.trace.tool-results/<file>`` beside the
    trace (the ``saved`` field), as a path relative to the current folder when it can be."""
    from pathlib import Path

    saved = persisted.get("saved")
    if not saved:
        return None
    path = Path(index.reader.path).parent / str(saved)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def render_wrapping(index: Any, step: int, event: Any, lang: str) -> Text:
    out = _title("wrapping", lang, f"{event.tool} {event.tool_use_id}")
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
            say(
                lang,
                "  (the book's createUserMessage, called from addToolResult)\n\n",
                "  （即书中 addToolResult 调用的 createUserMessage）\n\n",
            ),
            style="dim",
        )
    else:
        # One voice with the debug console and the guide: say which 2.1.88 path builds it.
        out.append(
            say(
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
        say(lang, "(kept beside the message, never sent)\n", "（留在消息旁，不发送）\n"),
        style="dim",
    )
    if message is not None:
        result = index.reader.tool_use_result(message)  # written once, on the tool_run event
        out.append_text(raw_output_text(result, lang))
        if note := failed_raw_note(getattr(event, "error_kind", None), result, lang):
            out.append("\n" + note, style="yellow")
    out.append("\n}\n", style="bold")
    if event.feedback:
        out.append(say(lang, "feedback", "反馈（acceptFeedback）") + colon(lang), style=LABEL)
        out.append(event.feedback + "\n", style="bold yellow")
    return out
