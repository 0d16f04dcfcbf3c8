"""The replay's words in Chinese and English.

Many readers of the book read Chinese first, so every label has both. ``--lang`` (or ``t`` in the
app) picks one; the default follows the locale (``zh*`` → Chinese). Field names the real system
uses (``tool_result``, ``is_error``, ``needsFollowUp``) stay as they are in both languages; every
other word is Chinese in zh mode, with full-width punctuation (``参数：``, not ``参数:``).

The four steps of a result's trip use the book's words first (结果的旅途: 翻译 → 包装 → 追加 →
重新发送) and the code's name after (mapping, wrapping, appending, resending): the book's three
stations (第一站、第二站、第三站) are sections of the chapter, not these steps.
"""

from __future__ import annotations

import os

LANGS = ("zh", "en")

STAGE_NAMES: dict[str, dict[str, str]] = {
    "session": {"zh": "会话开始", "en": "session"},
    "turn_start": {"zh": "新一轮", "en": "turn start"},
    "resending": {"zh": "重新发送", "en": "resending"},
    "response": {"zh": "AI 响应", "en": "response"},
    "follow_up": {"zh": "是否继续", "en": "follow-up"},
    "permission": {"zh": "权限", "en": "permission"},
    "tool_run": {"zh": "工具执行", "en": "tool run"},
    "mapping": {"zh": "翻译", "en": "mapping"},
    "wrapping": {"zh": "包装", "en": "wrapping"},
    "appending": {"zh": "追加", "en": "appending"},
    "max_turns_check": {"zh": "轮次检查", "en": "max-turns check"},
    "terminal": {"zh": "结束", "en": "terminal"},
}

TEXT: dict[str, dict[str, str]] = {
    "turn_step": {
        "zh": "第{turn}轮 · 第{step}/{total}步",
        "en": "turn {turn} · step {step}/{total}",
    },
    # Before the first turn there is no turn to name: the session's set-up, as the timeline says.
    "setup_step": {"zh": "准备 · 第{step}/{total}步", "en": "set-up · step {step}/{total}"},
    "no_steps": {"zh": "还没有步骤（等待记录…）", "en": "no steps yet (waiting for the recorder…)"},
    "setup": {"zh": "准备", "en": "set-up"},
    "turn": {"zh": "第{turn}轮", "en": "turn {turn}"},
    "subagent_turn": {"zh": "↳ 子代理第{turn}轮", "en": "↳ subagent turn {turn}"},
    "orient": {
        "zh": "第12章：①–④ 是工具结果回到 AI 的四步，按 1–4 跳过去 · ? 看所有按键",
        "en": "Chapter 12 · ①–④: a tool result's 4 steps back to the AI · 1–4 jump · ? keys",
    },
    "subagent_setup": {"zh": "↳ 子代理准备", "en": "↳ subagent set-up"},
    "turn_resumed": {"zh": "第{turn}轮（续）", "en": "turn {turn} (cont.)"},
    "timeline": {"zh": "时间线", "en": "timeline"},
    "debug": {"zh": "调试输出", "en": "debug console"},
    "chapter": {"zh": "章节", "en": "chapter"},
    "no_guide": {"zh": "（没有找到章节指南 guide.yaml）", "en": "(no chapter guide found)"},
    "no_section": {"zh": "这一步不在任何小节里。", "en": "No section covers this step."},
    "claude_code": {"zh": "Claude Code 源码", "en": "Claude Code source"},
    "bridge": {"zh": "书中的名字", "en": "in the book"},
    "ours": {"zh": "本项目", "en": "ours"},
    "fidelity": {"zh": "与书中的出入", "en": "fidelity"},
    "checkpoint": {"zh": "检查点", "en": "checkpoint"},
    "torn": {
        "zh": "轨迹在第{line}行中途截断；只显示前{steps}步",
        "en": "the trace ends mid-event at line {line}; showing the first {steps} steps",
    },
    "incomplete": {
        "zh": "会话不完整：记录器在会话结束前就停止了（没有 terminal 事件）",
        "en": "incomplete: the recorder stopped before the session ended",
    },
    "following": {"zh": "跟随中", "en": "following"},
    "in_subagent": {
        "zh": "子代理 {loop} 内（第{depth}层）· Esc 返回",
        "en": "inside subagent {loop} (depth {depth}) · Esc: back",
    },
    "indexing": {"zh": "索引中…", "en": "indexing…"},
    "playing": {"zh": "▶ 自动播放{speed}步/秒", "en": "▶ autoplay {speed} steps/s"},
    "search_prompt": {"zh": "搜索所有步骤…", "en": "search every step…"},
    "matches": {"zh": "第{n}/{total}个匹配", "en": "match {n}/{total}"},
    "no_matches": {"zh": "没有匹配：{query}", "en": "no match: {query}"},
    "matches_after": {"zh": "第{n}个匹配之后（共{total}个）", "en": "after match {n}/{total}"},
    "search_clear_hint": {"zh": "Esc 清除", "en": "Esc clears"},
    "zoom_hint": {
        "zh": "按 z 或 Esc 还原",
        "en": "z or Escape restores",
    },
    "palette_open": {"zh": "打开录制：{name}", "en": "Open recording: {name}"},
    "searching": {"zh": "搜索中…", "en": "searching…"},
    "goto_prompt": {"zh": "跳到第几步（1–{total}）", "en": "go to step (1–{total})"},
    "earlier_lines": {"zh": "… 之前还有{n}行", "en": "… {n} earlier lines"},
    "earlier_line": {"zh": "… 之前还有{n}行", "en": "… {n} earlier line"},
    "no_debug": {"zh": "（还没有 [DEBUG] 输出）", "en": "(no [DEBUG] lines yet)"},
    "help_title": {"zh": "按键", "en": "Keys"},
    "findings": {"zh": "诊断结果", "en": "findings"},
    "finding_where": {"zh": "第{step}步 · 第{turn}轮", "en": "step {step} · turn {turn}"},
    "check": {"zh": "检查：", "en": "check: "},
    "no_findings": {"zh": "诊断：没有发现问题", "en": "doctor: no findings"},
    "doctor_checking": {"zh": "诊断中…", "en": "the doctor is checking…"},
    "doctor_waiting": {
        "zh": "轨迹太大，打开时没有诊断；打开本面板即开始检查",
        "en": "too big to check on opening: opening this panel checks it",
    },
    "doctor_failed": {
        "zh": "无法诊断这条轨迹：{problem}",
        "en": "the doctor cannot check this trace: {problem}",
    },
    "ended": {"zh": "已结束", "en": "ended"},
    "waiting_for": {
        "zh": "等待文件出现：{path}（像 tail -F 一样）",
        "en": "waiting for {path} to appear (like tail -F)",
    },
    "goto_out_of_range": {
        "zh": "没有第{value}步：请输入1到{total}",
        "en": "there is no step {value}: enter 1 to {total}",
    },
    "help_close": {"zh": "按 Esc、? 或 q 关闭", "en": "Esc, ? or q closes this"},
    "mode_unfolded": {"zh": "已展开", "en": "unfolded"},
    "mode_raw": {"zh": "原始 JSON", "en": "raw JSON"},
    "copied": {"zh": "已复制{n}行到剪贴板", "en": "copied {n} lines to the clipboard"},
    "palette_placeholder": {"zh": "搜索命令…", "en": "Search for commands…"},
    "palette_no_matches": {"zh": "没有匹配的命令", "en": "No matches found"},
    "quit_hint": {"zh": "按 [b]{keys}[/b] 退出", "en": "Press [b]{keys}[/b] to quit the app"},
    "quit_title": {"zh": "要退出吗？", "en": "Do you want to quit?"},
    "picker_title": {"zh": "打开一条录制", "en": "Open a recording"},
    "picker_bundled": {"zh": "本章的录制", "en": "the chapter's recordings"},
    "picker_faults": {"zh": "故障录制", "en": "fault recordings"},
    "picker_here": {"zh": "当前目录", "en": "in this folder"},
    "picker_recent": {"zh": "最近打开", "en": "opened lately"},
    "picker_claude": {
        "zh": "本机的 Claude Code 会话（打开时导入）",
        "en": "Claude Code sessions on this machine (imported when opened)",
    },
    "importing": {"zh": "正在导入 {name}…", "en": "importing {name}…"},
    "picker_hint": {
        "zh": "↑↓ 选择，回车打开，Esc 关闭",
        "en": "↑↓ choose, Enter opens, Esc closes",
    },
    "opened": {"zh": "已打开 {name}", "en": "opened {name}"},
    "keys_bar": {
        "zh": "←→ 上/下一步  [ ] 上/下一轮  1-4 旅途四步  g 跳转  / 搜索  a 播放  t 语言  "
        "c 章节  d 诊断  ? 帮助  q 退出",
        "en": "←→ step  [ ] turn  1-4 journey step  g go to  / search  a play  t language  "
        "c chapter  d findings  ? help  q quit",
    },
}

HELP: list[tuple[str, dict[str, str]]] = [
    ("→ l space", {"zh": "下一步", "en": "next step"}),
    ("← h", {"zh": "上一步", "en": "previous step"}),
    (
        "Enter i / u Esc",
        {
            "zh": "进入子代理的循环 / 回到调用它的 Task",
            "en": "into a subagent's loop / back to its Task call",
        },
    ),
    ("] n", {"zh": "下一轮", "en": "next turn"}),
    ("[ p", {"zh": "上一轮（或本轮开头）", "en": "previous turn (or this turn's start)"}),
    (
        "1 2 3 4",
        {
            "zh": "下一个 ①翻译 ②包装 ③追加 ④重新发送",
            "en": "next ① mapping ② wrapping ③ appending ④ resending",
        },
    ),
    ("< >", {"zh": "第一步 / 最后一步（任何面板中）", "en": "first / last step (from any panel)"}),
    ("g", {"zh": "跳到第N步", "en": "go to step N"}),
    (
        "/",
        {
            "zh": "搜索屏幕上显示的文字（raw: 开头则搜索 JSON）",
            "en": "search the text on screen (raw: searches the JSON)",
        },
    ),
    ("n N . ,  F3", {"zh": "下一个 / 上一个匹配", "en": "next / previous match"}),
    (
        "Esc",
        {
            "zh": "清除搜索和高亮（没有搜索时：回到调用子代理的 Task）",
            "en": "clear the search and its highlights (else: out of a subagent)",
        },
    ),
    ("f", {"zh": "时间线只列出匹配的步骤", "en": "the timeline lists only matching steps"}),
    ("o Enter", {"zh": "展开折叠的内容", "en": "unfold what is folded"}),
    (
        "b",
        {
            "zh": "翻译：在原始输出和 tool_result 块之间跳转",
            "en": "mapping: jump between the raw output and the tool_result block",
        },
    ),
    (
        "r",
        {
            "zh": "原始 JSON（重新发送时含重建的请求）",
            "en": "raw JSON (with the rebuilt request when resending)",
        },
    ),
    ("y", {"zh": "复制当前面板（OSC 52）", "en": "copy the focused panel (OSC 52)"}),
    (
        "Tab shift+Tab",
        {"zh": "切换面板（高亮边框即当前面板）", "en": "next panel (the bright border marks it)"},
    ),
    ("z", {"zh": "放大 / 还原当前面板", "en": "zoom / restore the focused panel"}),
    (
        "T  D",
        {"zh": "显示 / 隐藏时间线、调试输出", "en": "show / hide the timeline, debug console"},
    ),
    ("O  ctrl+p", {"zh": "打开录制、命令面板", "en": "open a recording, command palette"}),
    ("a", {"zh": "自动播放（再按暂停）", "en": "autoplay (again to pause)"}),
    ("+ -", {"zh": "加快 / 放慢播放", "en": "faster / slower"}),
    ("↑ ↓ j k PgUp PgDn Home End", {"zh": "滚动当前面板", "en": "scroll the focused panel"}),
    ("t", {"zh": "切换语言", "en": "switch language"}),
    ("c", {"zh": "显示 / 隐藏章节面板", "en": "show / hide the chapter panel"}),
    (
        "d",
        {
            "zh": "显示 / 隐藏诊断结果（回车跳到该步）",
            "en": "show / hide findings (Enter jumps to one)",
        },
    ),
    (
        "s",
        {
            "zh": "目录：本章各节，以及展示它们的录制和步骤",
            "en": "contents: the chapter's sections, and where each shows",
        },
    ),
    (
        "w W B",
        {
            "zh": "导览（tracer tour）：下一处 / 上一处",
            "en": "tour (tracer tour): next / previous stop",
        },
    ),
    (
        "v",
        {
            "zh": "导览：回顾答案，回车跳到展示答案的那一步",
            "en": "tour: review your answers, Enter goes to the step that shows one",
        },
    ),
    ("? F1", {"zh": "帮助", "en": "help"}),
    ("q", {"zh": "退出", "en": "quit"}),
]


#: The key bar at the bottom: (keys, label, short label), most useful first. The bar shortens the
#: labels before it drops keys, and it never drops the last two (help and quit).
KEY_HINTS: list[tuple[str, dict[str, str], dict[str, str]]] = [
    ("←→", {"zh": "上/下一步", "en": "step"}, {"zh": "逐步", "en": "step"}),
    ("[ ]", {"zh": "上/下一轮", "en": "turn"}, {"zh": "逐轮", "en": "turn"}),
    ("1-4", {"zh": "旅途四步", "en": "journey step"}, {"zh": "四步", "en": "step"}),
    ("/", {"zh": "搜索", "en": "search"}, {"zh": "搜索", "en": "find"}),
    ("o", {"zh": "展开", "en": "unfold"}, {"zh": "展开", "en": "open"}),
    ("r", {"zh": "原始 JSON", "en": "raw JSON"}, {"zh": "原始", "en": "raw"}),
    ("Tab", {"zh": "切换面板", "en": "panel"}, {"zh": "面板", "en": "pane"}),
    ("z", {"zh": "放大", "en": "zoom"}, {"zh": "放大", "en": "zoom"}),
    ("T", {"zh": "时间线", "en": "timeline"}, {"zh": "时间线", "en": "time"}),
    ("c", {"zh": "章节", "en": "chapter"}, {"zh": "章节", "en": "ch"}),
    ("d", {"zh": "诊断", "en": "findings"}, {"zh": "诊断", "en": "doc"}),
    ("a", {"zh": "播放", "en": "play"}, {"zh": "播放", "en": "play"}),
    ("s", {"zh": "目录", "en": "contents"}, {"zh": "目录", "en": "toc"}),
    ("O", {"zh": "打开录制", "en": "open file"}, {"zh": "打开", "en": "file"}),
    ("t", {"zh": "语言", "en": "language"}, {"zh": "语言", "en": "lang"}),
    ("?", {"zh": "帮助", "en": "help"}, {"zh": "帮助", "en": "help"}),
    ("q", {"zh": "退出", "en": "quit"}, {"zh": "退出", "en": "quit"}),
]
"""While autoplay runs, ``a`` says "pause" instead (``KEY_PAUSE``)."""

KEY_PAUSE = {"zh": "暂停", "en": "pause"}


#: The command palette (ctrl+p): the app's own actions, (key, words). The palette shows the
#: words in the current language and does what the key does (:func:`tracer.replay.keys.action_of`).
PALETTE: list[tuple[str, dict[str, str]]] = [
    ("O", {"zh": "打开一条录制…", "en": "Open a recording…"}),
    (
        "s",
        {
            "zh": "目录：本章各节和展示它们的步骤",
            "en": "Contents: the chapter's sections and their steps",
        },
    ),
    ("slash", {"zh": "搜索", "en": "Search"}),
    ("g", {"zh": "跳到第N步", "en": "Go to step N"}),
    ("home", {"zh": "第一步", "en": "First step"}),
    ("end", {"zh": "最后一步", "en": "Last step"}),
    ("o", {"zh": "展开折叠的内容", "en": "Unfold what is folded"}),
    ("r", {"zh": "显示原始 JSON", "en": "Show the raw JSON"}),
    ("y", {"zh": "复制当前面板", "en": "Copy the focused panel"}),
    ("f", {"zh": "时间线只列出匹配的步骤", "en": "Timeline: only matching steps"}),
    ("T", {"zh": "显示 / 隐藏时间线", "en": "Show / hide the timeline"}),
    ("c", {"zh": "显示 / 隐藏章节面板", "en": "Show / hide the chapter panel"}),
    ("D", {"zh": "显示 / 隐藏调试输出", "en": "Show / hide the debug console"}),
    ("d", {"zh": "显示 / 隐藏诊断结果", "en": "Show / hide the findings"}),
    ("z", {"zh": "放大 / 还原当前面板", "en": "Zoom / restore the focused panel"}),
    ("a", {"zh": "自动播放 / 暂停", "en": "Autoplay / pause"}),
    ("t", {"zh": "切换语言（英文）", "en": "Switch language (Chinese)"}),
    ("question_mark", {"zh": "帮助：所有按键", "en": "Help: every key"}),
    ("q", {"zh": "退出", "en": "Quit"}),
]


SEVERITIES: dict[str, dict[str, str]] = {
    "error": {"zh": "错误", "en": "error"},
    "warning": {"zh": "警告", "en": "warning"},
}

#: The marker of each severity, on the timeline and in the findings panel (shape as well as
#: colour, for readers who cannot tell red from orange).
SEVERITY_MARKS = {"error": "●", "warning": "▲"}


def severity_name(severity: str, lang: str) -> str:
    return SEVERITIES.get(severity, {}).get(lang, severity)


def severity_mark(severity: str) -> str:
    return SEVERITY_MARKS.get(severity, "●")


#: The values a trace records in English (a permission's decision and where it came from), in
#: Chinese with the literal after it, as the stage titles carry the code's name: 批准（approve）.
VALUE_WORDS: dict[str, dict[str, str]] = {
    "allow": {"zh": "允许", "en": "allow"},
    "approve": {"zh": "批准", "en": "approve"},
    "reject": {"zh": "拒绝", "en": "reject"},
    "deny": {"zh": "禁止", "en": "deny"},
    "rule": {"zh": "规则", "en": "rule"},
    "prompt": {"zh": "询问用户", "en": "prompt"},
    "script": {"zh": "场景脚本", "en": "script"},
    "no_terminal": {"zh": "没有终端可问", "en": "no_terminal"},
    "default": {"zh": "默认", "en": "default"},
}


def value_word(value: object, lang: str) -> str:
    """A recorded value in ``lang``: ``批准（approve）`` in Chinese, the value itself in English."""
    words = VALUE_WORDS.get(str(value))
    if lang != "zh" or words is None:
        return str(value)
    return f"{words['zh']}（{value}）"


#: The book's name for each step, before the code's (the stage view's title in zh mode).
BOOK_TERMS = {"mapping": "翻译", "wrapping": "包装", "appending": "追加", "resending": "重新发送"}


def colon(lang: str) -> str:
    """The colon after a label: full-width in Chinese."""
    return "：" if lang == "zh" else ": "


def stage_title(stage: str, lang: str) -> str:
    """A step's title: the book's term first, the code's name after (``翻译（mapping）``)."""
    if lang == "zh" and stage in BOOK_TERMS:
        return f"{BOOK_TERMS[stage]}（{stage}）"
    return stage_name(stage, lang)


def words_for(table: dict[str, dict[str, str]], key: str, lang: str, **values: object) -> str:
    """``table[key]`` in ``lang`` (English when it has no such language), fields filled in."""
    text = table[key].get(lang) or table[key]["en"]
    return text.format(**values) if values else text


def tr(key: str, lang: str, **values: object) -> str:
    """The text for ``key`` in ``lang``, with ``{name}`` fields filled in."""
    return words_for(TEXT, key, lang, **values)


def position(lang: str, turn: int, step: int, total: int) -> str:
    """Where the reader is: "turn T · step S/N" (1-based ``step``), or, on the steps before the
    first turn (turn 0), "set-up · step S/N"."""
    return tr("turn_step" if turn else "setup_step", lang, turn=turn, step=step, total=total)


def stage_name(stage: str, lang: str) -> str:
    names = STAGE_NAMES.get(stage)
    return names.get(lang, stage) if names else stage


def default_lang(environ: dict[str, str] | None = None) -> str:
    """``zh`` when the locale says Chinese (LC_ALL, LC_MESSAGES or LANG start with ``zh``)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
