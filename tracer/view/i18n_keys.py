"""The words for the replay's keys, in Chinese and English: the help screen, the key bar at the
bottom and the command palette (ctrl+p).

Three tables of the same keys, each shaped for where it is shown: ``HELP`` explains every key in a
sentence (:data:`HELP_LINES` names the line of each of the replay's bindings by the binding's
``id``: the help screen is built from the bindings, so a key a keymap moved shows where it went),
``KEY_HINTS`` names the most useful ones in a word or two (and shorter still when the terminal is
narrow), ``PALETTE`` offers the app's actions by name. The digits 1–4 go to the four
steps of a result's trip, named as the book names them (①翻译 ②包装 ③追加 ④重新发送), and
every place that names the keys calls them the same: "1–4 go to ①–④" (跳到①–④).
"""

from __future__ import annotations

HELP: list[tuple[str, dict[str, str]]] = [
    ("→ l space", {"zh": "下一步", "en": "next step"}),
    ("← h", {"zh": "上一步", "en": "previous step"}),
    (
        "Enter i / u Esc",
        {
            "zh": "进入子代理的循环；回到调用它的 Task",
            "en": "into a subagent's loop / back to its Task call",
        },
    ),
    ("] n", {"zh": "下一轮", "en": "next turn"}),
    ("[ p", {"zh": "上一轮（或本轮开头）", "en": "previous turn (or this turn's start)"}),
    (
        "1–4",
        {
            "zh": "跳到①–④：下一次①翻译、②包装、③追加或④重新发送",
            "en": "go to ①–④: the next ① mapping, ② wrapping, ③ appending or ④ resending",
        },
    ),
    ("< >", {"zh": "第一步、最后一步（任何面板中）", "en": "first / last step (from any panel)"}),
    ("g", {"zh": "跳到第N步", "en": "go to step N"}),
    (
        "/",
        {
            "zh": "搜索屏幕上显示的文字（raw: 开头则搜索 JSON）",
            "en": "search the text on screen (raw: searches the JSON)",
        },
    ),
    ("n N . ,  F3", {"zh": "下一个、上一个匹配", "en": "next / previous match"}),
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
    ("z", {"zh": "放大或还原当前面板", "en": "zoom / restore the focused panel"}),
    (
        "T  D",
        {"zh": "显示或隐藏时间线、调试输出", "en": "show / hide the timeline, debug console"},
    ),
    ("O  ctrl+p", {"zh": "打开录制、命令面板", "en": "open a recording, command palette"}),
    ("a", {"zh": "自动播放（再按暂停）", "en": "autoplay (again to pause)"}),
    ("+ -", {"zh": "加快或放慢播放", "en": "faster / slower"}),
    ("↑ ↓ j k PgUp PgDn Home End", {"zh": "滚动当前面板", "en": "scroll the focused panel"}),
    ("t", {"zh": "切换语言", "en": "switch language"}),
    ("c", {"zh": "显示或隐藏章节面板", "en": "show / hide the chapter panel"}),
    (
        "d",
        {
            "zh": "显示或隐藏诊断结果（回车跳到该步）",
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
            "zh": "导览（tracer tour）：下一处、上一处",
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


#: The help line (its keys, as :data:`HELP` writes them; or lines) of each of the replay's
#: bindings, by the binding's ``id`` (Textual's ``Binding(..., id=...)``, which a keymap names:
#: ``App.set_keymap``). The bindings live in the widgets that own them (this layer never imports
#: Textual); the help screen lists a line when one of its bindings is bound, in HELP's order.
HELP_LINES: dict[str, str | tuple[str, ...]] = {
    # the transport (tracer.replay.widgets.progress.StepBar)
    "next-step": "→ l space",
    "previous-step": "← h",
    "first-step": "< >",
    "last-step": "< >",
    "next-turn": "] n",
    "previous-turn": "[ p",
    "go-to-mapping": "1–4",
    "go-to-wrapping": "1–4",
    "go-to-appending": "1–4",
    "go-to-resending": "1–4",
    "into-subagent": "Enter i / u Esc",
    "out-of-subagent": "Enter i / u Esc",
    "autoplay": "a",
    "faster": "+ -",
    "slower": "+ -",
    # the frame
    "toggle-timeline": "T  D",
    "toggle-chapter": "c",
    "toggle-debug": "T  D",
    "zoom": "z",
    # the step view, and the panels' own scroll keys (the pager's, the timeline's, the findings')
    "unfold": "o Enter",
    "raw": "r",
    "block": "b",
    "scroll-up": "↑ ↓ j k PgUp PgDn Home End",
    "scroll-down": "↑ ↓ j k PgUp PgDn Home End",
    "page-up": "↑ ↓ j k PgUp PgDn Home End",
    "page-down": "↑ ↓ j k PgUp PgDn Home End",
    "pager-up": "↑ ↓ j k PgUp PgDn Home End",
    "pager-down": "↑ ↓ j k PgUp PgDn Home End",
    "pager-page-up": "↑ ↓ j k PgUp PgDn Home End",
    "pager-page-down": "↑ ↓ j k PgUp PgDn Home End",
    "pager-top": "↑ ↓ j k PgUp PgDn Home End",
    "pager-bottom": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-up": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-down": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-page-up": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-page-down": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-first": "↑ ↓ j k PgUp PgDn Home End",
    "timeline-last": "↑ ↓ j k PgUp PgDn Home End",
    "findings-scroll-down": "↑ ↓ j k PgUp PgDn Home End",
    "findings-scroll-up": "↑ ↓ j k PgUp PgDn Home End",
    # the findings panel
    "findings": "d",
    "close-findings": "d",
    "next-finding": "d",
    "previous-finding": "d",
    # the search bar, the chapter column, the loader, the key bar
    "search": "/",
    "next-match": "n N . ,  F3",
    "previous-match": "n N . ,  F3",
    "contents": "s",
    "open-recording": "O  ctrl+p",
    "help": "? F1",
    # the screen's own (tracer.replay.keys.OWN)
    "next": ("] n", "n N . ,  F3"),
    "go-to": "g",
    "filter": "f",
    "language": "t",
    "copy": "y",
    "enter": ("Enter i / u Esc", "o Enter"),
    "escape": ("Enter i / u Esc", "Esc"),
    "next-stop": "w W B",
    "previous-stop": "w W B",
    "review-answers": "v",
    "quit": "q",
}

#: Lines of :data:`HELP` for Textual's own keys, listed whatever the replay binds.
TEXTUAL_LINES = ("Tab shift+Tab",)


#: The key bar at the bottom: (keys, label, short label), most useful first. The bar shortens the
#: labels before it drops keys, and it never drops the last two (help and quit).
KEY_HINTS: list[tuple[str, dict[str, str], dict[str, str]]] = [
    ("←→", {"zh": "上/下一步", "en": "step"}, {"zh": "逐步", "en": "step"}),
    ("[ ]", {"zh": "上/下一轮", "en": "turn"}, {"zh": "逐轮", "en": "turn"}),
    ("1–4", {"zh": "跳到①–④", "en": "go to ①–④"}, {"zh": "①–④", "en": "①–④"}),
    ("/", {"zh": "搜索", "en": "search"}, {"zh": "搜索", "en": "find"}),
    ("o", {"zh": "展开", "en": "unfold"}, {"zh": "展开", "en": "open"}),
    ("r", {"zh": "原始 JSON", "en": "raw JSON"}, {"zh": "原始", "en": "raw"}),
    ("Tab", {"zh": "切换面板", "en": "panel"}, {"zh": "面板", "en": "pane"}),
    ("z", {"zh": "放大", "en": "zoom"}, {"zh": "放大", "en": "zoom"}),
    ("T", {"zh": "时间线", "en": "timeline"}, {"zh": "时间线", "en": "time"}),
    ("c", {"zh": "章节", "en": "chapter"}, {"zh": "章节", "en": "ch"}),
    ("d", {"zh": "诊断", "en": "findings"}, {"zh": "诊断", "en": "doc"}),
    ("a", {"zh": "播放", "en": "play"}, {"zh": "播放", "en": "play"}),
    ("t", {"zh": "语言", "en": "language"}, {"zh": "语言", "en": "lang"}),
    ("s", {"zh": "目录", "en": "contents"}, {"zh": "目录", "en": "toc"}),
    ("O", {"zh": "打开录制", "en": "open file"}, {"zh": "打开", "en": "file"}),
    ("?", {"zh": "帮助", "en": "help"}, {"zh": "帮助", "en": "help"}),
    ("q", {"zh": "退出", "en": "quit"}, {"zh": "退出", "en": "quit"}),
]
"""While autoplay runs, ``a`` says "pause" instead (``KEY_PAUSE``)."""

KEY_PAUSE = {"zh": "暂停", "en": "pause"}


#: The command palette (ctrl+p): the app's own actions, (key, words). The palette shows the
#: words in the current language and does what the key does (:func:`tracer.replay.keys.action_of`).
PALETTE: list[tuple[str, dict[str, str]]] = [
    ("O", {"zh": "打开录制…", "en": "Open a recording…"}),
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
    ("T", {"zh": "显示或隐藏时间线", "en": "Show / hide the timeline"}),
    ("c", {"zh": "显示或隐藏章节面板", "en": "Show / hide the chapter panel"}),
    ("D", {"zh": "显示或隐藏调试输出", "en": "Show / hide the debug console"}),
    ("d", {"zh": "显示或隐藏诊断结果", "en": "Show / hide the findings"}),
    ("z", {"zh": "放大或还原当前面板", "en": "Zoom / restore the focused panel"}),
    ("a", {"zh": "自动播放或暂停", "en": "Autoplay / pause"}),
    ("t", {"zh": "切换语言（英文）", "en": "Switch language (Chinese)"}),
    ("question_mark", {"zh": "帮助：所有按键", "en": "Help: every key"}),
    ("q", {"zh": "退出", "en": "Quit"}),
]
