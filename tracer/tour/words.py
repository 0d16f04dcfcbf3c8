"""The words of the table of contents, the tour and the section panel's extras, in both languages.

Kept apart from :mod:`tracer.view.i18n` (the replay's own labels) so the navigation can grow
without touching them; :func:`say` looks words up as :func:`tracer.view.i18n.tr` does, through
the same :func:`~tracer.view.i18n.words_for`. Chinese strings use full-width punctuation and no
ASCII space between two Chinese characters.
"""

from __future__ import annotations

from tracer.view.i18n import words_for

WORDS: dict[str, dict[str, str]] = {
    "toc_title": {
        "zh": "目录：第12章的{n}节",
        "en": "Contents: the {n} sections of chapter 12",
    },
    "toc_hint": {
        "zh": "↑↓ 或 j k 选择 · 回车打开 · Esc 关闭",
        "en": "↑↓ or j k choose · Enter opens · Esc closes",
    },
    "toc_more": {"zh": "……另有{n}个录制", "en": "… and {n} more recordings"},
    "toc_none": {"zh": "（没有哪个录制展示这一节）", "en": "(no recording shows this section)"},
    "step": {"zh": "第{n}步", "en": "step {n}"},
    "steps": {"zh": "第{ranges}步", "en": "steps {ranges}"},
    "steps_more": {"zh": "第{ranges}步等", "en": "steps {ranges}, …"},
    "tour": {"zh": "导览 {n}/{total}", "en": "Tour {n}/{total}"},
    "tour_keys": {
        "zh": "w 导览的下一处 · W 上一处",
        "en": "w next stop · W previous stop",
    },
    "tour_as_usual": {"zh": "其余按键照常", "en": "every other key as usual"},
    "where": {"zh": "录制 {recording}，第{step}步", "en": "recording {recording}, step {step}"},
    "card_hint": {
        "zh": "回车关闭说明，可以自己前后翻看；按 w 去导览的下一处。",
        "en": "Enter closes this card so you can look around; w goes to the next stop.",
    },
    "predict": {"zh": "先猜一猜，再往下看", "en": "Predict, then step on"},
    "choose_hint": {
        "zh": "按 1–{n} 选择，或用 ↑↓ 加回车；Esc 先不答。",
        "en": "Press 1–{n}, or ↑↓ and Enter; Esc to skip for now.",
    },
    "number_hint": {
        "zh": "输入一个数，按回车；Esc 先不答。",
        "en": "Type a number and press Enter; Esc to skip for now.",
    },
    "right": {"zh": "答对了：{answer}。", "en": "Right: {answer}."},
    "wrong": {
        "zh": "不对。你答的是“{given}”，轨迹里是“{answer}”。",
        "en": "Not quite: you said {given}; the trace says {answer}.",
    },
    "evidence": {"zh": "轨迹里：{evidence}", "en": "In the trace: {evidence}"},
    "why": {"zh": "为什么", "en": "Why"},
    "reveal_hint": {
        "zh": "回车关闭说明；现在停在显示答案的那一步。按 w 去导览的下一处。",
        "en": "Enter closes this; you are now on the step that shows the answer. "
        "w goes to the next stop.",
    },
    "score": {
        "zh": "检查点：答对{right}个，共答了{answered}个（全部{total}个）。",
        "en": "Checkpoints: {right} right of {answered} answered ({total} in all).",
    },
    "unanswered": {"zh": "还没答", "en": "not answered yet"},
    "checkpoint": {"zh": "检查点：{name}", "en": "Checkpoint: {name}"},
    "tour_done": {
        "zh": "导览到此结束。用 tracer tour --restart 可以从头再来。",
        "en": "That is the end of the tour. tracer tour --restart starts it again.",
    },
    "last_stop": {"zh": "这已是导览的最后一处。", "en": "This is the last stop."},
    "first_stop": {"zh": "这已是导览的第一处。", "en": "This is the first stop."},
    "not_in_tour": {
        "zh": "只有在导览（tracer tour）里才有上一处和下一处。",
        "en": "Stops exist only on the tour (tracer tour).",
    },
    # The tour's keys beyond w and W, named the same on its bar, its cards and `tracer tour --help`.
    "tour_more_keys": {"zh": "v 回顾答案 · ? 所有按键", "en": "v review answers · ? every key"},
    "card_keys": {
        "zh": "回车关闭 · w 下一处 · W 上一处 · v 回顾答案",
        "en": "Enter closes · w next stop · W previous stop · v review answers",
    },
    "question_keys": {
        "zh": "w 跳过这个检查点 · W 上一处",
        "en": "w skips this checkpoint · W previous stop",
    },
    "choose_first": {
        "zh": "先选一个答案（按 1–{n}，或用 ↑↓），再按回车。",
        "en": "Choose an answer first (1–{n}, or ↑↓), then press Enter.",
    },
    "review_title": {"zh": "回顾我的答案", "en": "Review my answers"},
    "review_hint": {
        "zh": "↑↓ 或 j k 选择 · 回车：答过的去看答案，没答的现在问 · Esc 关闭",
        "en": "↑↓ or j k choose · Enter shows its answer, or asks it if unanswered · Esc closes",
    },
    "review_given": {"zh": "你的答案：{given}", "en": "you said: {given}"},
}


def say(key: str, lang: str, **values: object) -> str:
    """The words for ``key`` in ``lang``, with ``{name}`` fields filled in."""
    return words_for(WORDS, key, lang, **values)


def ranges_text(ranges: list[tuple[int, int]], lang: str, most: int = 4) -> str:
    """``[(3, 5), (10, 10)]`` as "steps 3–5, 10" (the first ``most`` ranges, then "…")."""
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return say("step", lang, n=ranges[0][0])
    parts = [f"{a}–{b}" if b > a else str(a) for a, b in ranges[:most]]
    joined = ("、" if lang == "zh" else ", ").join(parts)
    return say("steps_more" if len(ranges) > most else "steps", lang, ranges=joined)


__all__ = ["WORDS", "ranges_text", "say"]
