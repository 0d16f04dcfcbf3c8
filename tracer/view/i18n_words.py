"""The replay's words for what is on screen, in Chinese and English: the tables, no logic.

Each entry holds a ``zh`` and an ``en`` wording; :mod:`tracer.view.i18n` picks one. The names
of the stages come first (``STAGE_NAMES``, and ``BOOK_TERMS``: the book's words 翻译, 包装, 追加,
重新发送 for the four steps of a result's trip), then every message the screen shows (``TEXT``),
the doctor's severities, and the values a trace records in English (``VALUE_WORDS``). Field names
the real system uses (``tool_result``, ``is_error``) stay as they are in both languages; every
other word is Chinese in zh mode, with full-width punctuation.

The words for the keys (help, key bar, palette) live beside these, in :mod:`i18n_keys`.
"""

from __future__ import annotations

from tracer.doctor.finding import SEVERITY_WORDS

STAGE_NAMES: dict[str, dict[str, str]] = {
    "session": {"zh": "会话开始", "en": "session"},
    "turn_start": {"zh": "新一轮", "en": "turn start"},
    "resending": {"zh": "重新发送", "en": "resending"},
    "response": {"zh": "AI 回复", "en": "response"},
    "follow_up": {"zh": "是否继续", "en": "follow-up"},
    "permission": {"zh": "权限", "en": "permission"},
    "tool_run": {"zh": "工具执行", "en": "tool run"},
    "mapping": {"zh": "翻译", "en": "mapping"},
    "wrapping": {"zh": "包装", "en": "wrapping"},
    "appending": {"zh": "追加", "en": "appending"},
    "max_turns_check": {"zh": "轮次检查", "en": "max-turns check"},
    "terminal": {"zh": "结束", "en": "terminal"},
}

#: The book's name for each step, before the code's (the stage view's title in zh mode).
BOOK_TERMS = {"mapping": "翻译", "wrapping": "包装", "appending": "追加", "resending": "重新发送"}

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
        "zh": "第12章：①–④ 是工具结果回到 AI 的四步，按 1–4 跳到①–④ · ? 看所有按键",
        "en": "Chapter 12 · ①–④: a result's 4 steps back to the AI · 1–4 go to ①–④ · ? keys",
    },
    "orient_more": {
        "zh": "s 目录：本章各节在哪一步 · tracer tour：按书的顺序导览，边看边答",
        "en": "s contents: where each section shows · tracer tour: the chapter in order",
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
    "difference": {"zh": "与 Claude Code 2.1.88 的差异", "en": "Unlike Claude Code 2.1.88"},
    "difference_tracer": {"zh": "tracer", "en": "tracer"},
    "difference_claude_code": {"zh": "2.1.88", "en": "2.1.88"},
    "difference_why": {"zh": "原因", "en": "why"},
    "checkpoint": {"zh": "检查点", "en": "checkpoint"},
    # The chapter panel's extras: a scenario's notes and the section's diagram.
    "fault_notes": {
        "zh": "故意弄坏了什么，又怎样显现",
        "en": "What was broken on purpose, and how it shows",
    },
    "scenario_notes": {"zh": "这个场景演示什么", "en": "What this scenario shows"},
    "diagram": {"zh": "示意图", "en": "Diagram"},
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
    "subagent_here": {
        "zh": "↳ 这次 Task 调用启动了一个子代理：按 i 进入它的循环"
        "（{n}步，→ 会整段跳过），u 回到这里",
        "en": "↳ this Task ran a subagent: i goes into its loop ({n} steps, which → skips), "
        "u comes back here",
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
    "goto_hint": {
        "zh": "输入步数，回车跳过去；Esc 取消",
        "en": "type a number, Enter goes there; Esc cancels",
    },
    "palette_key": {"zh": "按键 {name}", "en": "key {name}"},
    "quit_again": {
        "zh": "要退出吗？再按一次 Ctrl+C，或按 {keys}",
        "en": "Quit? Press Ctrl+C again, or {keys}",
    },
    "earlier_lines": {"zh": "… 之前还有{n}行", "en": "… {n} earlier lines"},
    "earlier_line": {"zh": "… 之前还有{n}行", "en": "… {n} earlier line"},
    "no_debug": {"zh": "（还没有 [DEBUG] 输出）", "en": "(no [DEBUG] lines yet)"},
    "help_title": {"zh": "按键", "en": "Keys"},
    "findings": {"zh": "诊断结果", "en": "findings"},
    "finding_where": {"zh": "第{step}步 · 第{turn}轮", "en": "step {step} · turn {turn}"},
    "finding_where_setup": {"zh": "第{step}步 · 准备", "en": "step {step} · set-up"},
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
    "picker_title": {"zh": "打开录制", "en": "Open a recording"},
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
        "zh": "←→ 上/下一步  [ ] 上/下一轮  1–4 跳到①–④  g 跳转  / 搜索  a 播放  t 语言  "
        "c 章节  d 诊断  ? 帮助  q 退出",
        "en": "←→ step  [ ] turn  1–4 go to ①–④  g go to  / search  a play  t language  "
        "c chapter  d findings  ? help  q quit",
    },
}


SEVERITIES = SEVERITY_WORDS  # the doctor's own words for its severities

#: The marker of each severity, on the timeline and in the findings panel (shape as well as
#: colour, for readers who cannot tell red from orange).
SEVERITY_MARKS = {"error": "●", "warning": "▲"}

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
