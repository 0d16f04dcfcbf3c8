"""The book's words: the glossary every Chinese string tracer shows is checked against.

``chapters/<chapter>/glossary.yaml`` sits beside the guide and lists, for the chapter's Chinese,
the book's word and the words it replaces (AI, not 模型; 执行, not 运行; 用户消息, not
user 消息; 轮, not 回合 …), the four steps by the book's word first (翻译（mapping）, never a
bare ``mapping``), where 站 may appear (the book's three stations and 下一站预告
only), the English words that must not be labels or values in zh text (``model：``,
``决定：approve``), and the measure words a number keeps beside it (第2轮, not 第 2 轮).
:func:`glossary_problems` lists what a zh string gets wrong by it; the typography itself (spaces
between Chinese characters, full-width colons) is :func:`tracer.text.cjk.zh_problems`' job.

Pure and light: it reads one YAML file and checks strings; the guide loader and the tests use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tracer.errors import UserError
from tracer.files.yamlfile import line_of, load_yaml

_IDEOGRAPH = "\u3400-\u4dbf\u4e00-\u9fff"


@dataclass(frozen=True)
class Term:
    book: str
    """The word to use: the book's, or (``ours``) tracer's own where the book has none."""
    replaces: tuple[str, ...]
    why: str = ""
    ours: bool = False
    """tracer's own name (one name for one step), not a word of the book."""


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...]
    stations: tuple[str, ...]
    ui_labels: frozenset[str]
    ui_values: frozenset[str]
    measure_words: str
    steps: dict[str, str] = field(default_factory=dict)
    """The four steps' code names and the book's words for them (mapping → 翻译)."""
    path: Path | None = None
    _patterns: dict[str, re.Pattern[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        labels = "|".join(sorted(self.ui_labels, key=len, reverse=True))
        values = "|".join(sorted(self.ui_values, key=len, reverse=True))
        number = r"(?:\d[\d,]*(?:[–-]\d+)?|N)"
        self._patterns.update(
            # A label: an English word at the start of a line (or after a bullet), then a full-width
            # colon (an ASCII one belongs to a literal: "messages: [", "stdout:").
            label=re.compile(rf"(?m)^[\s•·]*({labels})\s*："),
            # A value: an English word right after a full-width colon, not followed by its
            # Chinese gloss or more of an identifier.
            value=re.compile(rf"：\s*({values})(?![\w（(.\-])"),
            step=re.compile(rf"(?<![\w（(\-/])({'|'.join(self.steps) or '(?!)'})(?![\w）)\-])"),
            number=re.compile(
                rf"第 +{number}|(?<![\w.]){number} +[{self.measure_words}]"
                rf"|[{_IDEOGRAPH}] +{number}(?=[{self.measure_words}])"
            ),
        )

    def problems(self, text: str) -> list[str]:
        """What ``text`` (a zh string) gets wrong by the glossary; empty when nothing is."""
        found: list[str] = []
        for term in self.terms:
            for word in term.replaces:
                if word in text:
                    says = "tracer's name is" if term.ours else "the book says"
                    found.append(f"“{word}” where {says} “{term.book}”: …{_near(text, word)}…")
        rest = text
        for word in self.stations:
            rest = rest.replace(word, "")
        if "站" in rest:
            found.append(f"站 outside the stations: …{_near(rest, '站')}…")
        for kind, what in (("label", "English label"), ("value", "English value")):
            for m in self._patterns[kind].finditer(text):
                found.append(
                    f"{what} “{m.group(1)}”: …{text[max(m.start() - 8, 0) : m.end() + 8]}…"
                )
        for m in self._patterns["step"].finditer(text):
            book = self.steps[m.group(1)]
            found.append(f"“{m.group(1)}” alone: the book says {book}（{m.group(1)}）")
        for m in self._patterns["number"].finditer(text):
            found.append(f"a number set apart from 第 or its measure word: “{m.group(0)}”")
        return found


def _near(text: str, word: str) -> str:
    at = text.find(word)
    return text[max(at - 10, 0) : at + len(word) + 10]


def glossary_path(guide_path: Path) -> Path:
    return guide_path.with_name("glossary.yaml")


def load_glossary(path: Path) -> Glossary:
    """Read and check ``path``; a mistake is a :class:`~tracer.errors.UserError` at file:line."""
    doc = load_yaml(path)
    if not isinstance(doc, dict):
        raise UserError("the glossary must be a mapping", path, 1)

    def words(key: str) -> list[str]:
        value = doc.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise UserError(f"{key}: must be a list of words", path, line_of(doc, key))
        return value

    terms = []
    raw = doc.get("terms")
    if not isinstance(raw, list):
        raise UserError("terms: must be a list", path, line_of(doc, "terms"))
    for i, node in enumerate(raw):
        ours = isinstance(node, dict) and "ours" in node
        if ours:
            node = {**node, "book": node.get("ours")}
        ok = isinstance(node, dict) and isinstance(node.get("book"), str)
        replaces = node.get("replaces") if isinstance(node, dict) else None
        if (
            not ok
            or not isinstance(replaces, list)
            or not all(isinstance(r, str) for r in replaces)
        ):
            raise UserError(
                f"terms[{i}]: needs book (or ours: a word) and replaces (a list of words)",
                path,
                line_of(raw[i] if isinstance(raw[i], dict) else doc, None if ok else "terms"),
            )
        terms.append(Term(node["book"], tuple(replaces), str(node.get("why") or ""), ours))
    measure = doc.get("measure_words")
    if not isinstance(measure, str) or not measure:
        raise UserError(
            "measure_words: must be a string of characters", path, line_of(doc, "measure_words")
        )
    return Glossary(
        tuple(terms),
        tuple(words("stations")),
        frozenset(words("ui_labels")),
        frozenset(words("ui_values")),
        measure,
        _steps(doc, path),
        path,
    )


def _steps(doc: dict[str, object], path: Path) -> dict[str, str]:
    steps = doc.get("steps", {})
    if not isinstance(steps, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in steps.items()
    ):
        raise UserError(
            "steps: must map each code name to the book's word", path, line_of(doc, "steps")
        )
    return dict(steps)


def maybe_glossary(guide_path: Path) -> Glossary | None:
    """The glossary beside a guide, or None when that guide has none."""
    path = glossary_path(guide_path)
    return load_glossary(path) if path.is_file() else None


__all__ = ["Glossary", "Term", "glossary_path", "load_glossary", "maybe_glossary"]
