"""Every Chinese string tracer holds in its tables and files is written the Chinese way.

Gathered from everywhere a zh reader meets fixed text: the chapter guide, the scenarios' and
faults' titles and notes, the replay's i18n tables, the doctor's messages, hints and report for
every bundled recording, the tour's words, the exported page's and the tour page's words (their
fields filled in). Each source is held to all three checks of :mod:`zh_helpers`: typesetting, no
English UI words, the book's words; the doctor's report and the help to the book's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from zh_helpers import RECORDINGS, book_words, english_words

from tracer.chapter.guide import load_guide
from tracer.doctor import run_doctor
from tracer.doctor.command import report_lines, summary
from tracer.doctor.hints import FALLBACK
from tracer.doctor.loop import REPEAT_HINT
from tracer.files.paths import CHAPTERS_DIR
from tracer.files.yamlfile import load_yaml
from tracer.text.cjk import zh_problems
from tracer.trace.events import STAGES
from tracer.trace.hooks import TRACER_ONLY
from tracer.trace.reader import TraceReader
from tracer.view import i18n, i18n_keys, i18n_words
from tracer.view.finding_text import finding_text


def _zh_values(node: Any, zh: bool = False) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _zh_values(value, zh or key == "zh")
    elif isinstance(node, list):
        for value in node:
            yield from _zh_values(value, zh)
    elif isinstance(node, str) and zh:
        yield node


def guide_strings() -> list[str]:
    guide = load_guide()
    out = [guide.title.zh]
    for section in guide.sections:
        out += [section.title.zh, section.notes.zh, *(note.zh for note in section.fidelity)]
    out += [entry.text.zh for entry in guide.stages.values()]
    out += [c.text.zh for c in guide.checkpoints]
    out += [c.question.zh for c in guide.checkpoints if c.question]
    out += [t.zh for e in guide.common_errors for t in (e.symptom, e.check)]
    out += [t["zh"] for d in guide.differences for t in (d.tracer, d.claude_code, d.why)]
    return out


def scenario_strings() -> list[str]:
    files = sorted((CHAPTERS_DIR / "ch12").glob("*/*.yaml"))
    return [s for path in files for s in _zh_values(load_yaml(path))]


def i18n_strings() -> list[str]:
    out = [t["zh"] for t in i18n_words.TEXT.values()]
    out += [n["zh"] for n in i18n_words.STAGE_NAMES.values()]
    out += [words["zh"] for _, words in i18n_keys.HELP]
    out += [s["zh"] for s in i18n_words.SEVERITIES.values()]
    out += [i18n.stage_title(stage, "zh") for stage in STAGES]
    return out


def doctor_strings() -> list[str]:
    out = [h["zh"] for h in FALLBACK.values()] + [REPEAT_HINT["zh"], TRACER_ONLY["zh"]]
    for path in RECORDINGS:
        findings = run_doctor(TraceReader(path))
        out += [f.message_zh for f in findings] + [f.hint["zh"] for f in findings]
        out += [line.strip() for line in report_lines(findings, "zh")]
        out.append(summary(Path(path.name), findings, "zh"))
        out += [finding_text(f, "zh").plain for f in findings]
    return out


def tour_strings() -> list[str]:
    from tracer.tour.checkpoints import CHOICE_WORDS
    from tracer.tour.words import WORDS

    return [w["zh"] for table in (WORDS, CHOICE_WORDS) for w in table.values() if "zh" in w]


def page_strings() -> list[str]:
    """The exported web page's own words, their fields filled as the page fills them."""
    from tracer.export.html.words import page_words

    words = page_words()
    parts = " / ".join(words[k]["zh"] for k in ("input", "cache_read", "cache_creation"))
    values = {"loop": "b1d2e3f4", "id": "toolu_l1", "name": "翻译", "n": 3, "turn": 2, "step": 8,
              "total": 36, "query": "git diff", "line": 12, "steps": 11, "top": "1,544",
              "parts": parts, "counts": "1个错误，2个警告",
              "what": "找出所有待办", "shown": 200, "same": 30, "changed": 2, "only_a": 1,
              "only_b": 0, "row": 9, "stage": "翻译（mapping）", "change": "不同"}  # fmt: skip
    return [re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), w["zh"])
            for w in words.values()]  # fmt: skip


def tour_page_strings() -> list[str]:
    """The tour page's own words (tracer/export/html/tour_words.py), filled as tour.js does."""
    from tracer.export.html.tour_words import tour_page_words

    values = {"n": 3, "recording": "01-main-walk", "step": 8, "total": 36, "from": 7}
    return [re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), w["zh"])
            for w in tour_page_words().values()]  # fmt: skip


STATIC = {
    "page": page_strings,
    "tour_page": tour_page_strings,
    "guide": guide_strings,
    "tour": tour_strings,
    "scenarios": scenario_strings,
    "i18n": i18n_strings,
    "doctor": doctor_strings,
}


@pytest.mark.parametrize("source", STATIC)
def test_static_zh_strings_are_typeset_the_chinese_way(source: str) -> None:
    strings = STATIC[source]()
    assert strings, source
    problems = [(s[:60], p) for s in strings for p in zh_problems(s)]
    assert problems == []


@pytest.mark.parametrize("source", STATIC)
def test_static_zh_strings_use_the_books_words(source: str) -> None:
    found = [(s[:60], p) for s in STATIC[source]() for p in book_words(s)]
    assert found == []


@pytest.mark.parametrize("source", STATIC)
def test_static_zh_strings_have_no_english_ui_words(source: str) -> None:
    found = [(s[:60], words) for s in STATIC[source]() if (words := english_words(s))]
    assert found == []


def test_the_doctor_report_and_the_help_use_the_books_words() -> None:
    texts = doctor_strings() + [words["zh"] for _, words in i18n_keys.HELP]
    texts += [words["zh"] for _, words in i18n_keys.PALETTE]
    assert [(t[:60], p) for t in texts for p in book_words(t)] == []
