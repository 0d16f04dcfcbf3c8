"""The book's words in every Chinese literal of the code and in the README's Chinese.

:mod:`test_zh_text_static` and :mod:`test_zh_text_views` check the strings a reader meets on
screen (the guide, the scenarios, the replay's tables, the rendered steps, the doctor, the tour,
the page). Those are gathered by hand, so a label written straight into a widget or a message
built in place could slip past them. This file reads the source instead: every string literal
of ``tracer/`` that holds a Chinese character (docstrings aside: they are English prose that may
quote a word the glossary replaces, as ``tracer/chapter/glossary.py`` does), and every run of
Chinese text in ``README.md``, held to the glossary beside the guide
(``chapters/ch12/glossary.yaml``: AI not 模型, 执行 not 运行, 轮 not 回合 …).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import tracer
from tracer.chapter.guide import load_guide

PACKAGE = Path(tracer.__file__).parent
README = Path(__file__).resolve().parents[1] / "README.md"
GLOSSARY = load_guide().glossary
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: A run of Chinese text in the README: ideographs and full-width punctuation, with the digits
#: and short ASCII names a Chinese phrase carries (AI, 第2轮), up to a code span, a table cell's
#: end or the · that sets a bilingual label's English half apart (消息包装 · wrapping).
_ZH_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef][^\n`|*·]*")
#: Its own messages name the words it looks for.
_SKIP = {PACKAGE / "chapter" / "glossary.py"}


def zh_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each string literal in ``source`` that holds Chinese, docstrings aside."""
    tree = ast.parse(source)
    docs: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            # a docstring, or a string standing alone after an assignment (an attribute's doc)
            docs.update(
                id(s.value)
                for s in body
                if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
            )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and _CJK.search(node.value)
        ):
            yield node.lineno, node.value


def literal_problems(source: str) -> list[tuple[int, str]]:
    assert GLOSSARY is not None
    return [(line, p) for line, text in zh_literals(source) for p in GLOSSARY.problems(text)]


def readme_problems(text: str) -> list[tuple[int, str]]:
    assert GLOSSARY is not None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for run in _ZH_RUN.findall(line):
            found += [(number, p) for p in GLOSSARY.problems(run)]
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p not in _SKIP)


def test_the_code_holds_chinese_literals_to_check() -> None:
    counted = sum(1 for p in SOURCES for _ in zh_literals(p.read_text(encoding="utf-8")))
    assert counted > 300  # the replay, the tour, the doctor, the page: hundreds of them


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_chinese_literal_in_the_code_uses_the_books_words(path: Path) -> None:
    assert literal_problems(path.read_text(encoding="utf-8")) == []


def test_the_readmes_chinese_uses_the_books_words() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(_ZH_RUN.findall(text)) > 20
    assert readme_problems(text) == []


@pytest.mark.parametrize("word", ["模型", "运行", "回合"])
def test_a_replaced_word_slipped_into_the_code_or_the_readme_is_caught(word: str) -> None:
    # The mutation the check is for: one of the words the book never uses, written into a
    # widget's label, a message built in place, or the README's Chinese.
    source = (PACKAGE / "view" / "i18n_words.py").read_text(encoding="utf-8")
    broken = source.replace('"AI 回复"', f'"{word}回复"', 1)
    assert broken != source
    assert literal_problems(source) == [] and literal_problems(broken)
    inline = 'def label(n: int) -> str:\n    return f"第{n}' + word + '"\n'
    assert literal_problems(inline)
    readme = README.read_text(encoding="utf-8")
    mutated = readme.replace("第一站：结果长什么样", f"第一站：{word}结果长什么样", 1)
    assert mutated != readme and readme_problems(mutated)
    # A docstring may quote the word (glossary.py explains what it replaces): not a finding.
    assert literal_problems(f'"""AI, not {word}."""\n') == []
