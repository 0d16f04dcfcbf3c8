"""What a tool gave back, before ① 翻译 turns it into a ``tool_result`` block: the raw output,
shown the way each tool shapes it.

Bash's is three parts (stdout, stderr, the exit code), Read's a file with a line range, Edit's a
patch (``structuredPatch`` hunks, coloured as a diff); anything else is shown as JSON. This raw
output is what the trace keeps as ``tool_use_result``: it stays beside the message, and the AI
never sees it. Paths under the recorder's throwaway workspace are shown relative to it.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from tracer.view.fold import as_json, folded_text
from tracer.view.i18n import colon, in_lang
from tracer.view.render_parts import LABEL, shown_value

#: The recorder's throwaway workspace (``…/tracer-XXXX/workspace/``), deleted once it is done.
_WORKSPACE = re.compile(r"^.*/tracer-[^/]+/workspace/")


def shown_path(path: object) -> str:
    """A file path as the reader should see it: relative to the recorder's workspace, which no
    longer exists once the recording is made (other paths, an import's, stay as they are)."""
    return "?" if path is None else _WORKSPACE.sub("", str(path))


def raw_output_text(output: Any, lang: str) -> Text:
    """A tool's raw output: shell streams, a file, an edit's patch, or anything else as JSON."""
    out = Text()
    if isinstance(output, dict) and "stdout" in output:
        out.append("stdout:\n", style=LABEL)
        out.append_text(folded_text(output.get("stdout") or "", lang=lang))
        if output.get("stderr"):
            out.append("\nstderr:\n", style=LABEL)
            out.append_text(folded_text(output["stderr"], "red", lang=lang))
        code = output.get("exit_code")
        out.append("\nexit_code: ", style=LABEL)
        out.append(shown_value(code, lang), style="bold red" if code else "bold green")
        if output.get("interrupted"):
            out.append("  interrupted", style="bold red")
        return out
    if isinstance(output, dict) and isinstance(output.get("file"), dict):
        file = output["file"]
        first, last, total = line_range(file)
        out.append(
            in_lang(
                lang,
                f"file: {shown_path(file.get('filePath'))}  lines {first}–{last} of {total}\n",
                f"文件：{shown_path(file.get('filePath'))}  第{first}–{last}行，共{total}行\n",
            ),
            style=LABEL,
        )
        out.append_text(folded_text(file.get("content", ""), lang=lang))
        return out
    if isinstance(output, dict) and "structuredPatch" in output:
        out.append(
            in_lang(lang, "file", "文件") + colon(lang) + f"{shown_path(output.get('filePath'))}\n",
            style=LABEL,
        )
        out.append_text(diff_text(output["structuredPatch"], lang))
        return out
    if isinstance(output, str):
        return folded_text(output, lang=lang)
    return folded_text(as_json(output), lang=lang)


def line_range(file: dict[str, Any]) -> tuple[Any, Any, Any]:
    """Read's ``(first, last, total)`` lines: ``numLines`` counts them, from ``startLine`` on."""
    start, count = file.get("startLine"), file.get("numLines")
    total = file.get("totalLines")
    total = total if isinstance(total, int) else "?"  # (an import may not know them)
    if isinstance(start, int) and isinstance(count, int):
        return start, start + count - 1, total
    return start if isinstance(start, int) else "?", "?", total


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
            in_lang(lang, f"… {more} more hunks (folded)\n", f"… 另有{more}段改动（已折叠）\n"),
            style="dim italic",
        )
    return out


def failed_raw_note(error_kind: str | None, output: Any, lang: str) -> str | None:
    """Where tracer's raw output of a failed command is not 2.1.88's, say so beside it."""
    if error_kind != "exit_code" or not isinstance(output, dict):
        return None
    return in_lang(
        lang,
        "2.1.88 keeps no such object for a failed command: the non-zero exit throws, and its "
        'tool_use_result is the string "Error: Exit code N …" (the error\'s text). tracer keeps '
        "its own dict, so stdout, stderr and the exit code can be seen apart.\n",
        "2.1.88 不会为失败的命令留下这样的对象：非零退出码会抛出错误，tool_use_result 是一个字符串"
        "“Error: Exit code N …”（错误的文字）。tracer 保留自己的字典，好把 stdout、stderr 和退出码"
        "分开来看。\n",
    )
