"""Station 1 as Rich text: the tool runs, then ① 翻译 (mapping) turns its raw output into one
``tool_result`` block.

Mapping is where the chapter's lesson starts: a tool's raw output (stdout, stderr and exit code;
a file; a diff) becomes one ``tool_result`` block (``mapToolResultToToolResultBlockParam`` in
Claude Code's tools, ``map_result`` here). The view puts the two side by side (``b`` jumps
between them), lights ``is_error`` and ``<tool_use_error>``, and explains a
``<persisted-output>`` preview: an output too large, saved to a file, of which the AI gets only a
preview and the path.
"""

from __future__ import annotations

from rich.text import Text

from tracer.trace.events import ToolFinished
from tracer.view import context
from tracer.view.fold import key_hint, short
from tracer.view.i18n import colon, in_lang
from tracer.view.render_output import failed_raw_note, raw_output_text
from tracer.view.render_parts import ERROR, LABEL, content_text, tool_title

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from typing import Any

    from tracer.trace.events import ResultMapped
    from tracer.view.steps import StepIndex


def render_tool_run(index: StepIndex, step: int, event: ToolFinished, lang: str) -> Text:
    out = tool_title("tool_run", lang, f"{event.tool} {event.tool_use_id}")
    out.append(in_lang(lang, "input", "输入") + colon(lang), style=LABEL)
    out.append(short(event.input, 200) + "\n")
    if event.duration_ms is not None:
        out.append(in_lang(lang, "duration", "耗时") + colon(lang), style=LABEL)
        out.append(f"{event.duration_ms} ms\n")
    if event.is_error:
        out.append(
            in_lang(lang, f"error ({event.error_kind})", f"出错（{event.error_kind}）") + "\n",
            style=ERROR,
        )
    out.append(
        in_lang(
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


def render_mapping(index: StepIndex, step: int, event: ResultMapped, lang: str) -> Text:
    out = tool_title("mapping", lang, f"{event.tool} {event.tool_use_id}")
    run = context.find_back(
        index.reader,
        index.positions[step],
        "tool_run",
        lambda e: getattr(e, "tool_use_id", None) == event.tool_use_id,
        limit=200,
    )
    if isinstance(run, ToolFinished):
        out.append(in_lang(lang, "raw output:\n", "原始输出：\n"), style="bold")
        out.append_text(raw_output_text(run.output, lang))
        out.append("\n\n")
    out.append("        ⇓  ", style="bold")
    out.append(
        in_lang(lang, "mapped to a tool_result block", "翻译成 tool_result 块"), style="bold"
    )
    out.append(
        in_lang(
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
    if "tool_use_id" in block:
        out.append(f'"{block["tool_use_id"]}"', style="yellow")
        out.append(",\n")
    else:  # a malformed block (fault 03): the API refuses it; say so rather than print None
        out.append(
            in_lang(
                lang,
                "(absent: the API refuses this block)\n",
                "（没有这个字段：API 会拒绝这个块）\n",
            ),
            style=ERROR,
        )
    out.append('  "is_error": ', style=LABEL)
    if "is_error" in block:
        is_error = block["is_error"]
        out.append(str(is_error).lower(), style=ERROR if is_error else "green")
        out.append(",\n")
    else:
        out.append(
            in_lang(
                lang, "(absent: prints as undefined)\n", "（没有这个字段：打印为 undefined）\n"
            ),
            style="dim",
        )
    out.append('  "content": \n', style=LABEL)
    out.append_text(content_text(block.get("content"), lang))
    out.append("\n}\n\n", style="bold")
    out.append(in_lang(lang, "content length: ", "content length（内容长度）："), style=LABEL)
    out.append(f"{event.content_length}", style="bold")
    if event.mapped_length != event.content_length:
        # Why the length changed: saved to a file, an empty result replaced by its notice, or
        # an error text cut by formatError.
        before = event.mapped_length
        if event.persisted:
            en, zh = f"before persisting: {before}", f"存入文件之前：{before}"
        elif getattr(event, "empty_replaced", None):
            en, zh = "the mapped content was empty", "翻译出的内容为空"
        else:
            en, zh = f"before the cut: {before}", f"截断之前：{before}"
        out.append(in_lang(lang, f"  ({en})", f"（{zh}）"))
    out.append("\n")
    if event.persisted:
        p = event.persisted
        out.append(
            in_lang(
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
                in_lang(
                    lang,
                    f"That temporary file is gone; the copy kept with the recording: {kept}\n",
                    f"那个临时文件已删除；随录制保存的副本：{kept}\n",
                ),
                style="yellow",
            )
    if event.empty_replaced:
        out.append(
            in_lang(
                lang,
                "Empty output was replaced by a sentence, so the model is never "
                "handed an empty result.\n",
                "空输出被替换成一句说明，AI 不会收到空结果。\n",
            ),
            style="yellow",
        )
    return out


def kept_copy(index: StepIndex, persisted: dict[str, Any]) -> str | None:
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
