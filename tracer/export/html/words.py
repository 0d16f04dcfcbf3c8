"""The page's own words (buttons, headings, labels) in Chinese and English.

Whatever the replay already says is taken from :mod:`tracer.view.i18n` (the position line,
the panel names, the search prompt, the stage names), and a step is named as the tour names it
(:mod:`tracer.tour.words`): the page must read like the terminal. Only what exists on a page and
not in a terminal (buttons instead of keys, the chart's title, a skip link) is written here. The
page fills ``{name}`` fields itself.
"""

from __future__ import annotations

from tracer.tour.words import WORDS as TOUR_WORDS
from tracer.view.i18n import LANGS, severity_name
from tracer.view.i18n_keys import HELP, KEY_HINTS
from tracer.view.i18n_words import TEXT

#: i18n's TEXT entries the page uses as they are.
FROM_TEXT = (
    "turn_step",
    "setup_step",
    "timeline",
    "chapter",
    "search_prompt",
    "matches",
    "no_matches",
    "searching",
    "mode_raw",
    "setup",
    "turn",
    "torn",
    "no_steps",
    "subagent_turn",
    "subagent_setup",
    "turn_resumed",
)

#: Words a page needs that a terminal does not.
PAGE: dict[str, dict[str, str]] = {
    "previous": {"zh": "上一步", "en": "previous step"},
    "next": {"zh": "下一步", "en": "next step"},
    "previous_turn": {"zh": "上一轮", "en": "previous turn"},
    "next_turn": {"zh": "下一轮", "en": "next turn"},
    "journey": {"zh": "结果的旅途", "en": "the result's journey"},
    "station_next": {"zh": "下一个{name}步骤", "en": "next {name} step"},
    "requests_chart": {
        "zh": "每次请求的字节数和输入 token 数",
        "en": "bytes and input tokens per request",
    },
    "bytes": {"zh": "字节数", "en": "bytes"},
    "bytes_n": {"zh": "字节数 {n}", "en": "{n} bytes"},
    # The tokens read in: input, cache read and cache creation, stacked ({parts} names them).
    "tokens_axis": {
        "zh": "输入 token 数 ≤ {top}（{parts}）",
        "en": "input tokens ≤ {top} ({parts})",
    },
    "input": {"zh": "输入", "en": "input"},
    "cache_read": {"zh": "缓存读取", "en": "cache read"},
    "cache_creation": {"zh": "缓存写入", "en": "cache creation"},
    "request_n": {"zh": "第{n}次请求：", "en": "request {n}: "},
    "no_tokens": {"zh": "这条轨迹没有记录 token 数", "en": "this trace has no token counts"},
    "subagent": {"zh": "子代理：{what}", "en": "subagent: {what}"},
    "subagent_ids": {"zh": "子代理 {loop}，由 {id} 调用", "en": "subagent {loop}, run by {id}"},
    "skip": {"zh": "跳到当前步骤", "en": "skip to the step"},
    "results": {"zh": "搜索结果", "en": "search results"},
    "step_n": TOUR_WORDS["step"],  # a step is named as the tour names it
    # The summary of the doctor's findings at the top of the page ({counts}: the two below).
    "findings_title": {
        "zh": "诊断（tracer doctor）：{counts}",
        "en": "What tracer doctor found: {counts}",
    },
    "one_error": {"zh": "1个错误", "en": "1 error"},
    "n_errors": {"zh": "{n}个错误", "en": "{n} errors"},
    "one_warning": {"zh": "1个警告", "en": "1 warning"},
    "n_warnings": {"zh": "{n}个警告", "en": "{n} warnings"},
    "list_comma": {"zh": "，", "en": ", "},
    # The steps a section of the contents shows, each number a link ({steps}: the numbers).
    "toc_steps": {"zh": "（第{steps}步）", "en": " (step {steps})"},
    "list_sep": {"zh": "、", "en": ", "},
    "results_first": {
        "zh": "只列出前{shown}个，共{total}个步骤匹配",
        "en": "the first {shown} of {total} matching steps",
    },
    "print_part": {
        "zh": "这里只打印了前{n}步，整个会话共{total}步（太长，无法一次打印）。",
        "en": "Printed here: the first {n} steps of {total} (the session is too long to print "
        "whole).",
    },
    # A browser without DecompressionStream cannot open the deflated steps of a long page.
    "no_inflate": {
        "zh": "这个浏览器太旧，无法解压本页第{n}步以后的步骤：请换用较新的浏览器打开。",
        "en": "This browser cannot unpack the steps after step {n} of this page (it has no "
        "DecompressionStream): open it in a current Chrome, Edge, Firefox or Safari.",
    },
    "findings_more": {"zh": "……另有{n}条", "en": "… and {n} more"},
    "index_title": {"zh": "第12章的录制", "en": "The chapter's recordings"},
    # The site's front page: what the chapter is about, before the list.
    "index_intro": {
        "zh": "第12章“结果回到AI手中”跟着一个工具结果走完它回家的路：三站，四步。工具的原始输出先"
        "翻译成一个 tool_result 块，再包装进一条用户消息，追加到对话历史里，然后整段历史重新发送"
        "给 AI，一轮接一轮，直到 AI 不再调用工具。下面每一页都逐步重放一次录制下来的会话，书中"
        "对应的内容就在旁边；故障录制故意弄坏了其中一步，页面顶上写着诊断出的问题。",
        "en": "Chapter 12 of a Chinese book on Claude Code's source, “结果回到AI手中” (the result "
        "goes back to the AI), follows one tool result home in three stations and four steps: the "
        "tool's raw output is translated (mapping) into a tool_result block, wrapped in a user "
        "message, appended to the history, and the whole history is resent to the AI, turn after "
        "turn, until it stops asking for tools. Each page below replays a recorded session step "
        "by step with the chapter beside it; the faults break one step on purpose, and their "
        "pages say first what went wrong.",
    },
    "home": {"zh": "全部录制", "en": "all recordings"},
    # The comparison of two runs (export --beside).
    "beside_summary": {"zh": "两次执行的差别", "en": "How the two runs differ"},
    "beside_none": {"zh": "两次执行逐步相同", "en": "The two runs are the same, step by step"},
    "beside_counts": {
        "zh": "{same}步相同，{changed}步不同，{only_a}步只有甲有，{only_b}步只有乙有",
        "en": "{same} steps the same, {changed} different, {only_a} only in A, {only_b} only in B",
    },
    "change_same": {"zh": "相同", "en": "the same"},
    "change_changed": {"zh": "不同", "en": "different"},
    "change_only_a": {"zh": "只有甲有", "en": "only in A"},
    "change_only_b": {"zh": "只有乙有", "en": "only in B"},
    "side_a": {"zh": "甲：{name}", "en": "A: {name}"},
    "side_b": {"zh": "乙：{name}", "en": "B: {name}"},
    "row_n": {"zh": "第{n}行", "en": "row {n}"},
    "row_position": {
        # (the stage last in Chinese: its name ends in a full-width bracket)
        "zh": "{turn} · 第{row}/{total}行 · {change} · {stage}",
        "en": "{turn} · {stage} · row {row}/{total} · {change}",
    },
    "not_in_run": {"zh": "（这次执行没有这一步）", "en": "(this run has no such step)"},
    "previous_difference": {"zh": "上一处差别", "en": "previous difference"},
    "next_difference": {"zh": "下一处差别", "en": "next difference"},
    "steps_n": {"zh": "{n}步", "en": "{n} steps"},
    "index_beside": {"zh": "与正常执行对照", "en": "beside its good run"},
}


def _help(label_en: str) -> dict[str, str]:
    return next(words for _keys, words in HELP if words["en"] == label_en)


def _hint(keys: str) -> dict[str, str]:
    return next(long for k, long, _short in KEY_HINTS if k == keys)


def page_words() -> dict[str, dict[str, str]]:
    """Every word the page shows, ``{key: {"zh": …, "en": …}}``."""
    words = {key: dict(TEXT[key]) for key in FROM_TEXT}
    words.update({key: dict(value) for key, value in PAGE.items()})
    words["previous"] = _help("previous step")
    words["next"] = _help("next step")
    words["next_turn"] = _help("next turn")
    words["language"] = _hint("t")
    words["search"] = _hint("/")
    words["contents"] = _hint("s")
    for severity in ("error", "warning"):
        words[severity] = {lang: severity_name(severity, lang) for lang in LANGS}
    return words
