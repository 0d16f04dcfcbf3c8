"""Chinese typography: joining folded lines, and the checks a zh string must pass.

YAML folds a line break inside a ``>`` block (or a plain multi-line scalar) into one ASCII space.
That is right for English and wrong for Chinese: "每次\\n都要重发" must read "每次都要重发", not
"每次 都要重发". :func:`join_lines` is the folding rule we use instead, the one Chinese
typesetting follows: no space where a line break falls between two Chinese characters, or next
to full-width punctuation; a space where either side is a Latin word (``tool_result 块``).

:func:`zh_problems` lists what a Chinese string gets wrong: an ASCII space between two Chinese
characters (or beside full-width punctuation), and an ASCII colon right after a Chinese label
("参数:" instead of "参数："). The guide loader, the i18n tables and the tests all use it.
"""

from __future__ import annotations

import re

_IDEOGRAPH = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULLWIDTH_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_WIDE = f"[{_IDEOGRAPH}{_FULLWIDTH_PUNCT}]"
_QUOTES = "“”‘’"

_SPACE_BETWEEN = re.compile(f"(?<={_WIDE}) +(?={_WIDE})")
_SPACE_AFTER_PUNCT = re.compile(f"(?<=[{_FULLWIDTH_PUNCT}]) +(?=\\S)")
_SPACE_BEFORE_PUNCT = re.compile(f"(?<=\\w) +(?=[{_FULLWIDTH_PUNCT}])")
# Curly quotes are full-width in Chinese text: no space between them and a character beside them.
_SPACE_BY_QUOTE = re.compile(f"(?<={_WIDE}) +(?=[“‘])|(?<=[”’]) +(?={_WIDE})")
_ASCII_COLON = re.compile(f"[{_IDEOGRAPH}]:(?!//)")


def is_wide(char: str) -> bool:
    """A Chinese character or a full-width punctuation mark."""
    return bool(re.fullmatch(_WIDE, char))


def is_fullwidth_punct(char: str) -> bool:
    return bool(re.fullmatch(f"[{_FULLWIDTH_PUNCT}]", char))


def joiner(left: str, right: str) -> str:
    """What goes where a line break was, between the text ``left`` and the text ``right``."""
    if not left or not right:
        return ""
    a, b = left[-1], right[0]
    if is_fullwidth_punct(a) or is_fullwidth_punct(b) or (is_wide(a) and is_wide(b)):
        return ""
    # Curly quotes are Chinese punctuation next to Chinese text ("标成“仅 tracer 打印”").
    if (is_wide(a) and b in _QUOTES) or (a in _QUOTES and is_wide(b)):
        return ""
    return " "


def join_lines(lines: list[str]) -> str:
    """Fold lines into one, the Chinese way (see the module docstring)."""
    out = ""
    for line in lines:
        out += joiner(out, line) + line if out else line
    return out


def zh_problems(text: str) -> list[str]:
    """What is wrong with a Chinese string's typography (empty when nothing is)."""
    problems = []

    def around(m: re.Match[str]) -> str:
        return text[max(m.start() - 8, 0) : m.end() + 8]

    for pattern, what in (
        (_SPACE_BETWEEN, "ASCII space between two Chinese characters"),
        (_SPACE_AFTER_PUNCT, "ASCII space after full-width punctuation"),
        (_SPACE_BEFORE_PUNCT, "ASCII space before full-width punctuation"),
        (_SPACE_BY_QUOTE, "ASCII space between a Chinese character and a curly quote"),
    ):
        for m in pattern.finditer(text):
            problems.append(f"{what}: …{around(m)}…")
    for m in _ASCII_COLON.finditer(text):
        problems.append(f"ASCII colon after a Chinese label: …{around(m)}…")
    return problems
