"""Every Chinese string the app can show is written the Chinese way.

Gathered from everywhere a zh reader meets text: the chapter guide, the scenarios' and faults'
titles and notes, the replay's i18n tables, the stage views of every step of every bundled
recording, the chapter panel for every stage and section, the doctor's messages, hints and report.
Each must pass :func:`tracer.text.cjk.zh_problems` (no ASCII space between two Chinese characters or
beside full-width punctuation, full-width colons after Chinese labels), carry no English UI
words (only identifiers, file names and literal API strings may stay in English), and use the
book's words: the glossary beside the guide (``chapters/ch12/glossary.yaml``) lists the words it
replaces (模型, 运行, user 消息, 回合, 站 outside the three stations…), the English words that
may not be labels or values, and the measure words a number keeps beside it (第2轮). The glossary
runs over the same strings, every rendered step of every recording, the tour's cards, the
doctor's report and the help.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.chapter.guide import load_guide
from tracer.doctor import run_doctor
from tracer.doctor.command import report_lines, summary
from tracer.doctor.hints import FALLBACK
from tracer.doctor.loop import REPEAT_HINT
from tracer.files.paths import CHAPTERS_DIR, RECORDINGS_DIR
from tracer.files.yamlfile import load_yaml
from tracer.text.cjk import join_lines, zh_problems
from tracer.trace.events import STAGES
from tracer.trace.hooks import TRACER_ONLY, shown_line
from tracer.trace.reader import TraceReader
from tracer.view import i18n, i18n_keys, i18n_words
from tracer.view.finding_text import finding_text
from tracer.view.render import render_step
from tracer.view.render_output import line_range, raw_output_text
from tracer.view.section_text import section_text, step_text
from tracer.view.steps import StepIndex

RECORDINGS = sorted(RECORDINGS_DIR.glob("*.trace.jsonl")) + sorted(
    (RECORDINGS_DIR / "faults").glob("*.trace.jsonl")
)

#: English words that are UI chrome, never identifiers or API strings: the issue's list and their
#: relatives. Checked in the rendered views, where trace content (English prompts, outputs) sits
#: beside the labels, so only these exact phrases are looked for there.
UI_PHRASES = re.compile(
    r"\brequests? \d|\(internal \d|\battempts\b|\blines \d|more hunks|before persisting|"
    r"station-\d|API messages|\bbytes\b|\(folded\)|same as before|\bturns? \d|\bstep \d|"
    # "String to replace not found" is Edit's own error text (trace data), not UI chrome.
    r"(?<!replace )\bnot found\b|\bmissing\)|go on\b|\bforced by\b|\bnoted by\b|"
    r"\bduration\b|\blatency\b"
)

#: ASCII words allowed in Chinese prose: names of things, not words of the UI.
ALLOWED = {
    "API",
    "JSON",
    "HTTP",
    "SDK",
    "MCP",
    "UTF",
    "SHA",
    "KB",
    "ms",
    "ID",
    "id",
    "Python",
    "tour",  # the command's name, as in "tracer tour"
    "Esc",  # a key name, as printed on the key
    "Ctrl",  # the same (Ctrl+C)
    "Task",  # the subagent tool's name, like Bash and Read
    "OSC",  # the terminal escape (OSC 52) that copying uses
    "tail",  # the command, as in "tail -F"
    "path",  # the wrong parameter name the model wrote, beside file_path
    "TypeScript",
    "JavaScript",
    "Mermaid",
    "Claude",
    "Code",
    "Anthropic",
    "tracer",
    "Textual",
    "Bash",
    "Read",
    "Edit",
    "Write",
    "Glob",
    "Grep",
    "git",
    "status",
    "diff",
    "grep",
    "rg",
    "find",
    "test",
    "cat",
    "ls",
    "echo",
    "true",
    "false",
    "undefined",
    "null",
    "user",
    "assistant",
    "thinking",
    "text",
    "uuid",
    "token",
    "tokens",
    "stdout",
    "stderr",
    "Loop",
    "turn",
    "Tool",
    "result",
    "DEBUG",
    "console",
    "log",
    "Exit",
    "code",
    "hooks",
    "hook",
    "show",
    "replay",
    "doctor",
    "record",
    "debug",
    "lang",
    "zh",
    "en",
    "repeat",
    "step",
    "max",
    "stage",
    "mapping",
    "wrapping",
    "appending",
    "resending",
    "while",
    "state",
    "next",
    "catch",
    "push",
    "content",
    "length",
    "type",
    "messages",
    "model",
    "tools",
    "usage",
    "input",
    "reason",
    "prompt",
    "system",
    "InputValidationError",
    "ToolResultBlockParam",
    "ShellError",
    "PreToolUse",
    "PostToolUse",
    "Enter",
    "Home",
    "End",
    "PgUp",
    "PgDn",
    "space",
    "F1",
    "F3",
    "OK",
    "AI",
    "bug",
    "True",
    "response",
    "session",
    "permission",
    "terminal",
    "completed",
    "interrupted",
}
#: Where a doctor message quotes the API's own error text (a literal API string, kept as is).
_API_QUOTE = re.compile(r"(API 拒绝了[^：]*|违反了 API 的规则)：.*$", re.M)
_CODE = re.compile(
    r"<[^>]*>|“[^”]*”|\"[^\"]*\"|'[^']*'|`[^`]*`|\{[^}]*\}|\[[^\]]*\]"
    r"|[\w.\-/*:]*[_./*:<>\-][\w.\-/*:<>]*|\b[a-z]+[A-Z]\w*\b|\w+\(\)?"
)


GLOSSARY = load_guide().glossary


def book_words(text: str) -> list[str]:
    """What ``text`` gets wrong by the glossary (the book's words, labels, numbers)."""
    assert GLOSSARY is not None, "the guide has its glossary beside it"
    return GLOSSARY.problems(text)


def english_words(text: str) -> list[str]:
    """ASCII words in a Chinese string that are neither code nor an allowed name."""
    stripped = _CODE.sub(" ", _API_QUOTE.sub(" ", text))
    return [w for w in re.findall(r"[A-Za-z]{2,}", stripped) if w not in ALLOWED]


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


# -- the rules themselves ------------------------------------------------------------------------


def test_the_checks_catch_what_they_are_for() -> None:
    assert zh_problems("每次 都要重发")
    assert zh_problems("消息数 （Loop turn）")
    assert zh_problems("“这是错误， 不是输出”")
    assert zh_problems("Claude Code 源码: query.ts")
    assert zh_problems("参数:model")
    assert zh_problems("内容以 “Exit code 1” 开头")
    assert zh_problems("内容以“Exit code 1”开头") == []
    assert zh_problems("每次都要重发，tool_result 块（Loop turn）") == []
    assert english_words("第 2 次请求（internal 7）") == ["internal"]
    assert english_words("lines 1–5 of 9") == ["lines", "of"]
    assert english_words("tool_result 块、is_error、addToolResult 和 “Exit code N”") == []


def test_folded_lines_join_the_chinese_way(tmp_path: Path) -> None:
    assert join_lines(["每次", "都要重发，", "tool_result 块", "（Loop turn）", "ok"]) == (
        "每次都要重发，tool_result 块（Loop turn）ok"
    )
    assert join_lines(["the whole", "history"]) == "the whole history"
    assert join_lines(["标成", "“仅 tracer 打印”"]) == "标成“仅 tracer 打印”"
    assert join_lines(["the line", "“Tool result”"]) == "the line “Tool result”"
    path = tmp_path / "folded.yaml"
    path.write_text(
        "zh: >-\n  每次\n  都要重发，\n  tool_result 块\n\n  第二段\n"
        "en: >-\n  the whole\n  history\n"
        "kept: >-\n  a\n    more indented\n  b\n",
        encoding="utf-8",
    )
    data = load_yaml(path)
    assert data["zh"] == "每次都要重发，tool_result 块\n第二段"
    assert data["en"] == "the whole history"
    assert data["kept"] == "a\n  more indented\nb"  # YAML's own folding, where we do not redo it


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


def test_the_readme_sets_its_chinese_the_chinese_way() -> None:
    from tracer.files.paths import ROOT

    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("no README in this checkout")
    lines = readme.read_text(encoding="utf-8").splitlines()
    assert [(n, p) for n, line in enumerate(lines, 1) for p in zh_problems(line)] == []
    text = "\n".join(lines)
    assert "第四站" not in text and "映射" not in text


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


# -- the book's words, where the app shows them ------------------------------------------------


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


def test_the_doctor_report_and_the_help_use_the_books_words() -> None:
    texts = doctor_strings() + [words["zh"] for _, words in i18n_keys.HELP]
    texts += [words["zh"] for _, words in i18n_keys.PALETTE]
    assert [(t[:60], p) for t in texts for p in book_words(t)] == []


def test_no_one_character_labels_in_the_key_bar() -> None:
    for keys, long, short in i18n_keys.KEY_HINTS:
        assert len(long["zh"]) >= 2 and len(short["zh"]) >= 2, keys
    assert len(i18n_keys.KEY_PAUSE["zh"]) >= 2


def test_the_glossary_catches_what_it_is_for() -> None:
    assert book_words("模型收到的内容")
    assert book_words("工具运行完毕")
    assert book_words("提示词（第一条 user 消息）")
    assert book_words("展开拼接出新的历史")
    assert book_words("中止整个回合")
    assert book_words("要不要继续（follow_up）")
    assert book_words("w 下一站")
    assert book_words("1-4 站点")
    assert book_words("model：claude")
    assert book_words("  usage：input_tokens 1")
    assert book_words("决定：approve")
    assert book_words("第 2 轮")
    assert book_words("内部列表 9 条")
    assert book_words("看 wrapping 步骤")
    assert book_words("翻译（mapping）步骤") == []
    # What stays: the stations, literals, a value with its Chinese gloss, numbers with no measure.
    assert book_words("第一站：结果长什么样；第二站；第三站；下一站预告") == []
    assert book_words("决定：批准（approve）") == []
    assert book_words("stop_reason：tool_use") == []
    assert book_words("messages: [") == []
    assert book_words("max_turns 是 2，第2轮的工具刚执行完") == []
    assert book_words("内容以“Exit code 1”开头，is_error 为 true") == []


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
