"""A doctor's finding as the replay writes it: severity, rule, where, what, and how to check.

:func:`finding_text` turns one finding of :func:`tracer.doctor.run_doctor` into a few lines of
Rich text in the reader's language: its severity's mark in that severity's colour
(:data:`SEVERITY_STYLE`, which the timeline's marks share) and its rule id; the step and turn
where to look (第2步 · 准备 before the first turn, for there is no 第0轮: the loop is still being
set up); the doctor's one-line message; and the guide's "how to check" hint. The findings panel
(:class:`~tracer.replay.widgets.findings_panel.FindingsPanel`) shows one such text a row, wrapped
the Chinese way. Nothing here imports Textual; it mirrors no Claude Code file (the doctor checks
the chapter's common errors in a recorded loop).
"""

from __future__ import annotations

from rich.text import Text

from tracer.view.i18n import severity_mark, severity_name, tr

#: Colour of each severity's marker, shared with the timeline.
SEVERITY_STYLE = {"error": "bold #ff5f5f", "warning": "bold #ffaf00"}


def finding_text(finding: object, lang: str) -> Text:
    """One finding as a few lines: severity and rule; step and turn; message; how to check."""
    severity = str(getattr(finding, "severity", "error"))
    style = SEVERITY_STYLE.get(severity, "bold")
    text = Text()
    text.append(f"{severity_mark(severity)} {severity_name(severity, lang)}", style=style)
    text.append(f"  {getattr(finding, 'rule', '?')}", style="bold")
    turn = getattr(finding, "turn", 0)
    # Before the first turn there is no 第0轮: the loop is still being set up (as the header says).
    where = "finding_where" if turn else "finding_where_setup"
    text.append("  " + tr(where, lang, step=getattr(finding, "step", 0), turn=turn), style="dim")
    zh_message = getattr(finding, "message_zh", "") if lang == "zh" else ""
    text.append("\n" + str(zh_message or getattr(finding, "message", "")))
    hint = getattr(finding, "hint", None) or {}
    words = hint.get(lang) or hint.get("en") or hint.get("zh")
    if words:
        text.append("\n" + tr("check", lang), style="bold")
        text.append(str(words), style="italic")
    return text
