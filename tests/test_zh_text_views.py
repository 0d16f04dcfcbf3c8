"""What the app draws in Chinese is written the Chinese way, in the book's words.

The chapter panel for every stage and section, the stage view of every step of every bundled
recording, the tracer-only debug lines, every ``in_lang`` label of the step views (read from the
source, so labels no recording reaches are checked too), every card the tour shows, and the key
bar; a file read's line range and the first send are worded as in the English; a step kind has
one name in the diagrams and on the timeline.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from zh_helpers import RECORDINGS, UI_PHRASES, book_words, english_words

from tracer.chapter.guide import load_guide
from tracer.files.paths import RECORDINGS_DIR
from tracer.text.cjk import zh_problems
from tracer.trace.events import STAGES
from tracer.trace.hooks import TRACER_ONLY, shown_line
from tracer.trace.reader import TraceReader
from tracer.view import i18n, i18n_keys, i18n_words
from tracer.view.render import render_step
from tracer.view.render_output import line_range, raw_output_text
from tracer.view.section_text import section_text, step_text
from tracer.view.steps import StepIndex


def test_the_chapter_panel_in_chinese() -> None:
    guide = load_guide()
    texts = [step_text(guide, None, stage, "zh").plain for stage in STAGES]
    texts += [section_text(section, "zh").plain for section in guide.sections]
    for text in texts:
        assert zh_problems(text) == [], text[:80]
        assert book_words(text) == [], text[:80]
        assert not UI_PHRASES.search(text), text[:80]
    assert not any("station-" in t for t in texts)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name.split(".")[0])
def test_every_stage_view_in_chinese(path: Path) -> None:
    index = StepIndex(TraceReader(path))
    for step in range(len(index)):
        text = render_step(index, step, "zh").plain
        assert zh_problems(text) == [], (step + 1, text)
        assert book_words(text) == [], (step + 1, text)
        match = UI_PHRASES.search(text)
        assert match is None, (step + 1, match and match.group(0), text)


def test_tracer_only_debug_lines_in_chinese() -> None:
    with TraceReader(RECORDINGS_DIR / "08-failing-command.trace.jsonl") as reader:
        marked = [shown_line(e, "zh") for e in reader if getattr(e, "tracer_only", None)]
    assert marked and all(line.endswith(TRACER_ONLY["zh"]) for line in marked)


def test_read_line_range_is_start_to_start_plus_count_minus_one() -> None:
    file = {"filePath": "calc.py", "content": "x", "startLine": 3, "numLines": 5, "totalLines": 9}
    assert line_range(file) == (3, 7, 9)
    output = {"type": "text", "file": file}
    assert "lines 3–7 of 9" in raw_output_text(output, "en").plain
    zh = raw_output_text(output, "zh").plain
    assert "第3–7行，共9行" in zh and not english_words(zh.splitlines()[0])


def test_request_one_is_the_first_send_not_a_resend() -> None:
    index = StepIndex(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
    stages = [index.stage(s) for s in range(len(index))]
    first, second = [s for s, stage in enumerate(stages) if stage == "resending"][:2]
    assert "The first send" in render_step(index, first, "en").plain
    assert "首次发送" in render_step(index, first, "zh").plain
    assert "首次发送" not in render_step(index, second, "zh").plain


def _say_literals() -> list[str]:
    """The Chinese argument of every ``in_lang(lang, en, zh)`` in the step views, read from the
    source, so labels no bundled recording reaches are checked too (``{}`` marks a value)."""
    import ast

    from tracer.files.paths import ROOT

    out = []
    for path in sorted((ROOT / "tracer" / "view").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "in_lang"):
                continue
            if len(node.args) != 3:
                continue
            zh = node.args[2]
            if isinstance(zh, ast.Constant) and isinstance(zh.value, str):
                out.append(zh.value)
            elif isinstance(zh, ast.JoinedStr):
                out.append(
                    "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in zh.values)
                )
    return out


def test_every_chinese_label_in_the_views() -> None:
    labels = _say_literals()
    assert len(labels) > 30, "the views' labels are found"
    assert [(s, p) for s in labels for p in zh_problems(s)] == []
    assert [(s, w) for s in labels if (w := english_words(s))] == []


def test_the_tour_cards_in_chinese(tmp_path: Path) -> None:
    """Every card the tour shows in zh: each stop's title and card (its diagram drawn in zh),
    each reveal answered right and wrong, the score and the last card."""
    from tracer.tour.cards import done_card, reveal_card, section_card, stop_title
    from tracer.tour.stops import Tour, plan_stops
    from tracer.view.sections import bundled_contents, recording_info

    guide = load_guide()
    tour = Tour(plan_stops(guide, bundled_contents(guide)))
    texts: list[str] = []
    for position, stop in enumerate(tour.stops):
        tour.position = position
        texts.append(stop_title(tour, "zh"))
        if stop.question is None:
            rec = recording_info(stop.recording, TraceReader(stop.recording).header)
            texts.append(section_card(tour, guide, rec, "zh").plain)
            continue
        question = stop.question
        wrong = next((c.value for c in question.choices if c.value != question.answer), "0")
        for given in (question.answer, wrong):
            tour.progress.answers[question.checkpoint.id] = {"given": given, "right": False}
            texts.append(reveal_card(tour, "zh").plain)
    texts.append(done_card(tour, guide, "zh").plain)
    assert len(texts) > len(tour.stops)
    diagrams = [t for t in texts if "▸" in t or "┌" in t or "─" in t]
    assert diagrams, "the roadmap and the journey draw their diagram"
    for text in texts:
        assert book_words(text) == [], text[:200]
        assert not UI_PHRASES.search(text), text[:200]
        # Outside the drawn diagram (boxes set apart by spaces), the typography holds as well.
        prose = "\n".join(line for line in text.splitlines() if not set(line) & set("│┌└┐┘├┤─▸▼►↺"))
        assert zh_problems(prose) == [], prose[:200]
        assert [w for line in prose.splitlines() for w in english_words(line)] == [], prose[:200]


def test_no_one_character_labels_in_the_key_bar() -> None:
    for keys, long, short in i18n_keys.KEY_HINTS:
        assert len(long["zh"]) >= 2 and len(short["zh"]) >= 2, keys
    assert len(i18n_keys.KEY_PAUSE["zh"]) >= 2


def test_one_name_per_stage_in_the_diagrams_and_the_timeline() -> None:
    """A step kind is called the same in the zh diagrams as on the timeline (是否继续, not
    要不要继续 in one place and 是否继续 in another)."""
    guide = load_guide()
    named = 0
    for section in guide.sections:
        for label, stage in re.findall(
            r"[\"\\[>]\s*([^\"<>\[\]（）]+)（(\w+)）", section.diagram("zh") or ""
        ):
            if stage in STAGES:
                label = label.strip(" ①②③④")
                assert label in (i18n.stage_name(stage, "zh"), i18n_words.BOOK_TERMS.get(stage)), (
                    section.id,
                    label,
                    stage,
                )
                named += 1
    assert named >= 12
