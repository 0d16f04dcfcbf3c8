"""The pieces every stage view is built from: its title, its ``label: value`` rows, its colours,
and the content blocks of a message, each in a line or (unfolded) in full.

A stage view is a short document: a title naming the step (``翻译（mapping）`` in Chinese, the
book's word before the code's), a few labelled fields, then the messages or blocks the step is
about. ``block_text`` is the one place a ``text``, ``thinking``, ``tool_use`` or ``tool_result``
block becomes a line, so the blocks read the same at every step of the trip: mapped at ① 翻译,
wrapped at ② 包装, appended at ③ 追加 and resent at ④ 重新发送.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from tracer.view.fold import as_json, folded_text, is_unfolded, short
from tracer.view.i18n import colon, in_lang, stage_title

LIT = "bold black on #e8d44d"
"""What changed at this step: new rows, the new tail."""
LABEL = "bold cyan"
ERROR = "bold white on #b03030"
_TAGS = re.compile(r"</?(tool_use_error|persisted-output)>")


def title(stage: str, lang: str, extra: str = "") -> Text:
    """A stage view's first line: the stage's name (the book's word first in zh) and ``extra``."""
    out = Text(stage_title(stage, lang), style="bold underline")
    if extra:
        # In zh a full-width space: two ASCII spaces would sit between two Chinese words.
        out.append(("\u3000" if lang == "zh" else "  ") + extra, style="bold")
    out.append("\n\n")
    return out


def tool_title(stage: str, lang: str, extra: str) -> Text:
    """A tool step's title, its tool and call id beside it. Its line break is bold too, unlike
    :func:`title`'s: a different span, so the tool views keep their own (snapshotted) styling."""
    out = Text(stage_title(stage, lang), style="bold underline")
    out.append(("\u3000" if lang == "zh" else "  ") + extra + "\n\n", style="bold")
    return out


def field(out: Text, label: str, value: Any, style: str = "", lang: str = "en") -> None:
    """``label: value`` on one line (a full-width colon in Chinese)."""
    out.append(label + colon(lang), style=LABEL)
    out.append(f"{shown_value(value, lang)}\n", style=style)


def shown_value(value: Any, lang: str) -> str:
    """A field's value as the trace's JSON spells it: an imported transcript often has no
    ``stop_reason`` or exit code, and Python's ``None``, ``True`` and ``False`` are no words
    of the trace's (or of Claude Code's, whose debug lines print ``false``)."""
    if value is None:
        return in_lang(lang, "null (none)", "null（无）")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def request_label(number: int, lang: str) -> str:
    """How every view names a request: ``request 3``, ``第3次请求``."""
    return in_lang(lang, f"request {number}", f"第{number}次请求")


def block_text(block: Any, lang: str, width: int = 60, full: bool = False) -> Text:
    """One content block in a line (or in full, folded): its type and what it holds."""
    if block is None:
        return Text(in_lang(lang, "(missing)", "（缺失）"), style="dim")
    if isinstance(block, str):
        return Text(f'"{short(block, width)}"')
    kind = block.get("type", "?")
    full = full or is_unfolded()  # the reader asked to see everything
    out = Text(f"{kind} ", style="bold magenta")
    if kind == "text":
        out.append_text(
            folded_text(block.get("text", ""), lang=lang)
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
            out.append_text(content_text(block.get("content", ""), lang))
        else:
            out.append(short(block.get("content", ""), width))
    else:
        out.append(short({k: v for k, v in block.items() if k != "type"}, width), style="dim")
    return out


def hanging(text: Text, spaces: int) -> Text:
    """``text`` with every line but the first indented by ``spaces``: a block that spans lines,
    written after a ``uuid  `` column, keeps its lines under that column."""
    if "\n" not in text.plain:
        return text
    first, *rest = text.split("\n", allow_blank=True)
    pad = Text(" " * spaces)
    return Text("\n").join([first, *(pad + line if line.plain else line for line in rest)])


def indented(text: Text, spaces: int) -> Text:
    """``text`` with every line indented (an unfolded block spans lines; they stay nested)."""
    pad = Text(" " * spaces)
    if "\n" not in text.plain:  # most blocks are one line: the same Text, without a split
        return pad + text
    return Text("\n").join(pad + line for line in text.split("\n", allow_blank=True))


def content_text(content: Any, lang: str = "en") -> Text:
    """A ``tool_result``'s content, folded, with ``<tool_use_error>`` and persisted tags lit."""
    if isinstance(content, list):
        parts = [
            b.get("text", "") if isinstance(b, dict) and b.get("type") == "text" else as_json(b)
            for b in content
        ]
        content = "\n".join(parts)
    out = folded_text(str(content) if content is not None else "", lang=lang)
    out.highlight_regex(_TAGS, ERROR)
    return out
