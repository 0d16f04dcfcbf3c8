"""Text width in terminal cells, not characters: a CJK character takes two cells.

``tracer show`` and ``import --list`` cut long text to fit a column. Cutting by characters makes
a Chinese line twice as wide as an English one (每个汉字占两格), so these helpers count cells the
way a terminal draws them (East Asian Wide and Fullwidth characters: 2; combining marks: 0).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def char_cells(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(char_cells(ch) for ch in text)


def clip(text: object, width: int) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``width`` cells with "…"."""
    flat = " ".join(str(text).split())
    if cells(flat) <= width:
        return flat
    out: list[str] = []
    used = 0
    for ch in flat:
        w = char_cells(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"
