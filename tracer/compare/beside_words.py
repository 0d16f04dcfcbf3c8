"""The words of the terminal's comparison (``tracer replay A --beside [B]``), in both languages.

:class:`~tracer.compare.beside.Comparison` says where its cursor is and
:func:`~tracer.compare.beside.summary_text` writes the summary in these words (:func:`word`
looks one up, its fields filled in; :func:`turn_name` names a turn, or the set-up before the
first); :mod:`tracer.compare.render_beside` titles the two columns with them. The help screen's
lines are here too: :data:`HELP` (the keys as the help writes them, and what they do) and
:data:`HELP_LINES` (which line each binding of :mod:`tracer.replay.beside_screen` belongs to, by
its ``id``). Like the replay's tables (:mod:`tracer.view.i18n_words`), it holds words only, no
Textual; it mirrors no Claude Code file, since Claude Code has no comparison of two sessions.
"""

from __future__ import annotations

from tracer.view.i18n import words_for

WORDS: dict[str, dict[str, str]] = {
    "title": {"zh": "两次执行的差别", "en": "How the two runs differ"},
    "side_a": {"zh": "甲：{name}", "en": "A: {name}"},
    "side_b": {"zh": "乙：{name}", "en": "B: {name}"},
    "identical": {"zh": "两次执行逐步相同。", "en": "The two runs are the same, step by step."},
    "counts": {
        "zh": "{same}步相同，{changed}步不同，{only_a}步只有甲有，{only_b}步只有乙有。",
        "en": "{same} steps the same, {changed} different, {only_a} only in A, {only_b} only in B.",
    },
    "differences": {
        "zh": "差别（n／N 跳到下一处／上一处）：",
        "en": "Differences (n/N: next/previous):",
    },
    "more": {
        "zh": "……共{n}处，这里列出前{listed}处",
        "en": "… {n} in all, the first {listed} listed",
    },
    "findings_a": {
        "zh": "甲的诊断结果（d 跳到所在的行）：",
        "en": "The doctor's findings in A (d jumps to the row):",
    },
    "findings_b": {
        "zh": "乙的诊断结果（d 跳到所在的行）：",
        "en": "The doctor's findings in B (d jumps to the row):",
    },
    "start": {
        "zh": "按 → 从第1行开始逐步对照，s 回到这份摘要，? 查看全部按键。",
        "en": "→ steps through both runs from row 1; s comes back to this summary; ? every key.",
    },
    "row": {"zh": "第{row}行", "en": "row {row}"},
    "setup": {"zh": "准备", "en": "set-up"},
    "turn": {"zh": "第{turn}轮", "en": "turn {turn}"},
    "same": {"zh": "相同", "en": "the same"},
    "changed": {"zh": "不同", "en": "different"},
    "only_a": {"zh": "只有甲有", "en": "only in A"},
    "only_b": {"zh": "只有乙有", "en": "only in B"},
    "position": {
        "zh": "{turn} · 第{row}/{total}行 · {change} · {stage}",
        "en": "{turn} · {stage} · row {row}/{total} · {change}",
    },
    "side_step": {"zh": "第{step}/{total}步", "en": "step {step}/{total}"},
    "column_a": {"zh": "甲 · {where} · {name}", "en": "A · {where} · {name}"},
    "column_b": {"zh": "乙 · {where} · {name}", "en": "B · {where} · {name}"},
    "no_step_here": {"zh": "无此步", "en": "no step"},
    "no_step": {"zh": "（这次执行没有这一步）", "en": "(this run has no such step)"},
    "finding_here_a": {"zh": "甲的诊断：{rule}", "en": "doctor, A: {rule}"},
    "finding_here_b": {"zh": "乙的诊断：{rule}", "en": "doctor, B: {rule}"},
    "no_difference": {"zh": "后面没有差别了", "en": "no more differences that way"},
    "doctor_checking": {"zh": "诊断中…", "en": "the doctor is checking…"},
    "no_finding": {"zh": "两次执行都没有诊断结果", "en": "the doctor found nothing in either run"},
    "keys": {
        "zh": "→← 两边一起走 · n/N 差别 · d 诊断 · s 摘要 · t 语言 · ? 按键 · q 退出",
        "en": "→← step · n/N difference · d finding · s summary · t lang · ? keys · q quit",
    },
}

#: The comparison's keys and what they do, for its help screen (keys, then the words).
HELP: list[tuple[str, dict[str, str]]] = [
    ("→ l space", {"zh": "两边一起走到下一行", "en": "both runs: the next row"}),
    ("← h", {"zh": "两边一起回到上一行", "en": "both runs: the previous row"}),
    ("home end < >", {"zh": "第一行、最后一行", "en": "the first row, the last row"}),
    (
        "] [ p",
        {
            "zh": "下一轮的第一行、本轮（上一轮）的第一行",
            "en": "the first row of the next turn, of this (the previous) turn",
        },
    ),
    (
        "1 2 3 4",
        {
            "zh": "下一个翻译、包装、追加、重新发送",
            "en": "the next mapping, wrapping, appending, resending",
        },
    ),
    ("n N", {"zh": "下一处、上一处差别", "en": "the next, the previous difference"}),
    ("d", {"zh": "下一条诊断结果所在的行", "en": "the row of the doctor's next finding"}),
    ("↑ ↓ j k PgUp PgDn", {"zh": "两栏一起滚动", "en": "scroll both columns"}),
    ("s", {"zh": "显示或隐藏差别摘要", "en": "show or hide the summary"}),
    ("t", {"zh": "切换语言", "en": "switch language"}),
    ("?", {"zh": "显示或隐藏本帮助", "en": "show or hide this help"}),
    ("q", {"zh": "退出", "en": "quit"}),
]


#: The help line (its keys, as :data:`HELP` writes them) of each of the comparison's bindings, by
#: the binding's ``id`` (the Binding lives in :mod:`tracer.replay.beside_screen`; the help screen
#: is generated from the bindings, so a key a keymap moved shows where it went).
HELP_LINES: dict[str, str | tuple[str, ...]] = {
    "next-row": "→ l space",
    "previous-row": "← h",
    "first-row": "home end < >",
    "last-row": "home end < >",
    "next-turn": "] [ p",
    "previous-turn": "] [ p",
    "go-to-mapping": "1 2 3 4",
    "go-to-wrapping": "1 2 3 4",
    "go-to-appending": "1 2 3 4",
    "go-to-resending": "1 2 3 4",
    "next-difference": "n N",
    "previous-difference": "n N",
    "next-finding": "d",
    "scroll-down": "↑ ↓ j k PgUp PgDn",
    "scroll-up": "↑ ↓ j k PgUp PgDn",
    "page-down": "↑ ↓ j k PgUp PgDn",
    "page-up": "↑ ↓ j k PgUp PgDn",
    "summary": "s",
    "language": "t",
    "help": "?",
    "quit": "q",
}


def word(key: str, lang: str, **values: object) -> str:
    """The comparison's word ``key`` in ``lang``, its fields filled in."""
    return words_for(WORDS, key, lang, **values)


def turn_name(turn: int, lang: str) -> str:
    return word("turn", lang, turn=turn) if turn else word("setup", lang)
