"""The replay's two languages: picking one, and filling its words in.

Many readers of the book read Chinese first, so every label has both. ``--lang`` (or ``t`` in the
app) picks one; the default follows the locale (``zh*`` → Chinese). Field names the real system
uses (``tool_result``, ``is_error``, ``needsFollowUp``) stay as they are in both languages; every
other word is Chinese in zh mode, with full-width punctuation (``参数：``, not ``参数:``).

The four steps of a result's trip use the book's words first (结果的旅途: 翻译 → 包装 → 追加 →
重新发送) and the code's name after (mapping, wrapping, appending, resending): the book's three
stations (第一站、第二站、第三站) are sections of the chapter, not these steps.

The words themselves are tables in two modules below this one: :mod:`i18n_words` (stage names,
the screen's messages, severities, recorded values) and :mod:`i18n_keys` (help, key bar,
palette). This module holds the one way every table is read: :func:`words_for` looks a key up
in a table (the tour's and the page's tables too), :func:`pick` reads a two-language text from
the guide, :func:`in_lang` chooses between two wordings written in place.
"""

from __future__ import annotations

import os

from tracer.view.i18n_words import (
    BOOK_TERMS,
    SEVERITIES,
    SEVERITY_MARKS,
    STAGE_NAMES,
    TEXT,
    VALUE_WORDS,
)

__all__ = [
    "LANGS",
    "colon",
    "default_lang",
    "in_lang",
    "position",
    "severity_mark",
    "severity_name",
    "stage_name",
    "stage_title",
    "tr",
    "value_word",
    "words_for",
]

LANGS = ("zh", "en")


def in_lang(lang: str, en: str, zh: str) -> str:
    """The English or the Chinese wording of a sentence written in place, not kept in a table."""
    return zh if lang == "zh" else en


def pick(text: object, lang: str) -> str:
    """A two-language text from the guide (``{"zh": …, "en": …}``) in ``lang``, English when that
    one is missing; a plain string as it is."""
    if isinstance(text, dict):
        return str(text.get(lang) or text.get("en") or "")
    return "" if text is None else str(text)


def severity_name(severity: str, lang: str) -> str:
    return SEVERITIES.get(severity, {}).get(lang, severity)


def severity_mark(severity: str) -> str:
    return SEVERITY_MARKS.get(severity, "●")


def value_word(value: object, lang: str) -> str:
    """A recorded value in ``lang``: ``批准（approve）`` in Chinese, the value itself in English."""
    words = VALUE_WORDS.get(str(value))
    if lang != "zh" or words is None:
        return str(value)
    return f"{words['zh']}（{value}）"


def colon(lang: str) -> str:
    """The colon after a label: full-width in Chinese."""
    return "：" if lang == "zh" else ": "


def stage_title(stage: str, lang: str) -> str:
    """A step's title: the book's term first, the code's name after (``翻译（mapping）``)."""
    if lang == "zh" and stage in BOOK_TERMS:
        return f"{BOOK_TERMS[stage]}（{stage}）"
    return stage_name(stage, lang)


def words_for(table: dict[str, dict[str, str]], key: str, lang: str, **values: object) -> str:
    """``table[key]`` in ``lang`` (English when it has no such language), fields filled in."""
    text = table[key].get(lang) or table[key]["en"]
    return text.format(**values) if values else text


def tr(key: str, lang: str, **values: object) -> str:
    """The text for ``key`` in ``lang``, with ``{name}`` fields filled in."""
    return words_for(TEXT, key, lang, **values)


def position(lang: str, turn: int, step: int, total: int) -> str:
    """Where the reader is: "turn T · step S/N" (1-based ``step``), or, on the steps before the
    first turn (turn 0), "set-up · step S/N"."""
    return tr("turn_step" if turn else "setup_step", lang, turn=turn, step=step, total=total)


def stage_name(stage: str, lang: str) -> str:
    names = STAGE_NAMES.get(stage)
    return names.get(lang, stage) if names else stage


def default_lang(environ: dict[str, str] | None = None) -> str:
    """``zh`` when the locale says Chinese (LC_ALL, LC_MESSAGES or LANG start with ``zh``)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
