"""A step as Rich text: what it produced, and what it changed. :func:`render_step` picks the view.

One function per stage, kept by where the stage sits in the chapter: station 1 (the tool runs,
① 翻译 maps its output) in :mod:`render_mapping`; station 2 (the permission gate, ② 包装 wraps
the result) in :mod:`render_wrapping`; ③ 追加 and ④ 重新发送 in :mod:`render_history`; and the
loop around them (session, turn, response, follow-up, turn limit, end) in :mod:`render_loop`.
They share :mod:`render_parts` (titles, fields, blocks). Labels are Chinese in zh mode, with
full-width colons.

These functions only read the trace through :mod:`context`; nothing here knows about Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from tracer.view.fold import as_json, folded_text, short
from tracer.view.i18n import in_lang
from tracer.view.render_history import render_appending, render_resending
from tracer.view.render_loop import (
    render_follow_up,
    render_max_turns,
    render_response,
    render_session,
    render_terminal,
    render_turn_start,
)
from tracer.view.render_mapping import render_mapping, render_tool_run
from tracer.view.render_parts import LABEL, title
from tracer.view.render_wrapping import render_permission, render_wrapping
from tracer.view.steps import StepIndex

__all__ = [
    "RENDERERS",
    "import_notes",
    "render_step",
]

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
        out.append_text(folded_text(as_json(getattr(event, "raw", event)), lang=lang))
    else:
        out = renderer(index, step, event, lang)
    notes = import_notes(index, step)
    if notes:
        out.append(in_lang(lang, "\nnoted by the import:\n", "\n导入时的备注：\n"), style=LABEL)
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
