"""The tour page's own words: what a web page has and a terminal does not (buttons, taps).

Everything the tour says about the chapter (titles, cards, questions, reveals, the score) comes
from :mod:`tracer.tour` itself (:mod:`.tour_payload`); the words shared with the replay page
(the language button) from :mod:`.words`. Chinese strings use full-width punctuation and no
ASCII space between two Chinese characters; ``{name}`` fields are filled by ``tour.js``.
"""

from __future__ import annotations

from tracer.export.html.words import page_words

TOUR_PAGE: dict[str, dict[str, str]] = {
    "heading": {
        "zh": "第12章导览：先猜，再往下走",
        "en": "Chapter 12, the tour: predict, then step",
    },
    "next_stop": {"zh": "下一处", "en": "Next stop"},
    "previous_stop": {"zh": "上一处", "en": "Previous stop"},
    "start_over": {"zh": "从头再来", "en": "Start over"},
    "started_over": {
        "zh": "答案已清空，导览从第一处重新开始。",
        "en": "Answers cleared; the tour starts again from the first stop.",
    },
    "check": {"zh": "确定", "en": "Check"},
    "your_number": {"zh": "你猜的数", "en": "Your number"},
    "choose_keys": {
        "zh": "按 1–{n} 或点一个答案。答了之后，才往下走到显示答案的那一步。",
        "en": "Press 1–{n} or tap an answer. Only then does the tour step on to the step "
        "that shows it.",
    },
    "number_keys": {
        "zh": "输入一个数，按回车或点“确定”。答了之后，才往下走到显示答案的那一步。",
        "en": "Type a number, then Enter or Check. Only then does the tour step on to the step "
        "that shows it.",
    },
    "stop_keys": {
        "zh": "→ 或 w 下一处 · ← 或 W 上一处 · v 我的答案",
        "en": "→ or w next stop · ← or W previous stop · v my answers",
    },
    "skip_note": {
        "zh": "不答就去下一处，这个检查点会记作还没答。",
        "en": "Going on without an answer leaves this checkpoint unanswered.",
    },
    "standing": {
        "zh": "现在停在录制 {recording} 的第{step}/{total}步。答案在后面，先猜。",
        "en": "You are on step {step}/{total} of {recording}. The answer comes later: "
        "predict first.",
    },
    "stepped": {
        "zh": "往下走到了第{step}/{total}步（从第{from}步）：答案就在这里。",
        "en": "Stepped on to step {step}/{total} (from step {from}): the answer shows here.",
    },
    "section_step": {
        "zh": "录制 {recording}，第{step}/{total}步",
        "en": "{recording}, step {step}/{total}",
    },
    "open_step": {
        "zh": "在录制的页面里打开这一步，前后翻看",
        "en": "Open this step in the recording's page to look around",
    },
    "done_title": {"zh": "导览到此结束", "en": "The end of the tour"},
    "done": {
        "zh": "点“从头再来”可以清空答案，重新走一遍。",
        "en": "Start over clears your answers and takes the tour again.",
    },
    "recordings": {"zh": "所有录制", "en": "All recordings"},
    "index_tour": {
        "zh": "从这里开始：第12章导览，每个检查点先猜，再往下走",
        "en": "Start here: the chapter 12 tour, predicting at each checkpoint before you step",
    },
    "stop_list": {"zh": "导览的各处", "en": "The tour's stops"},
}


def tour_page_words() -> dict[str, dict[str, str]]:
    """The page's own words, with the replay page's language button's."""
    words = {key: dict(value) for key, value in TOUR_PAGE.items()}
    page = page_words()
    for key in ("language", "previous", "next"):  # the replay page's: 上一步 / 下一步
        words[key] = page[key]
    return words


__all__ = ["TOUR_PAGE", "tour_page_words"]
