"""Text width in terminal cells, not characters: a CJK character takes two cells.

``tracer show`` and ``import --list`` cut long text to fit a column. Cutting by characters makes
a Chinese line twice as wide as an English one (每个汉字占两格), so these helpers count cells the
way the terminal draws them. They ask Rich, which draws the replay: one table of widths for the
whole tool, so a column cut here lines up with the same text in the TUI, emoji joined by
zero-width joiners (one picture, two cells) included.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    return len(text) if text.isascii() else cell_len(text)


def clip(text: object, width: int) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``width`` cells with "…"."""
    flat = " ".join(str(text).split())
    if cells(flat) <= width:
        return flat
    # set_cell_size pads with a space where a wide character would straddle the edge.
    return set_cell_size(flat, max(width - 1, 0)).rstrip(" ") + "…"


def ljust(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` cells (``str.ljust`` counts characters, so a
    Chinese word in a column pushed everything after it two cells a character too far)."""
    return text + " " * max(width - cells(text), 0)
