"""The Chinese checks themselves catch what they are for, and let the rest through.

Spaces and colons the typesetting check must find, English words that are UI and words that are
code, the glossary's replaced words, labels and measure words (and the stations, literals and
glossed values it must leave alone); folded YAML lines joined the Chinese way; and the README's
Chinese held to the same typesetting.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from zh_helpers import book_words, english_words

from tracer.files.yamlfile import load_yaml
from tracer.text.cjk import join_lines, zh_problems


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


def test_the_readme_sets_its_chinese_the_chinese_way() -> None:
    from tracer.files.paths import ROOT

    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("no README in this checkout")
    lines = readme.read_text(encoding="utf-8").splitlines()
    assert [(n, p) for n, line in enumerate(lines, 1) for p in zh_problems(line)] == []
    text = "\n".join(lines)
    assert "第四站" not in text and "映射" not in text


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
