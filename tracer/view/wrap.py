"""Line wrapping that knows Chinese: break between ideographs, not only at spaces.

Rich wraps at whitespace, which suits English. Chinese has no spaces: a paragraph is one long
"word" to Rich, so it is pushed whole onto a new line and folded there, leaving the English
words around it stranded on short lines ("API" alone, then the Chinese). Here a line may also
break between two characters when either is wide (CJK), never before closing punctuation such
as ，。、：）” and never after opening punctuation such as （《“, as Chinese typesetting does; nor
between a number and the character beside it, so 第2轮 and 3条 never split across lines. A word
longer than the line (``mapToolResultToToolResultBlockParam`` in a narrow panel) is cut where
its parts meet, not at whatever character reaches the edge.
Pure: it takes a Rich ``Text`` and a width and returns the lines; the pager draws them. Every
panel's text is laid out here, so this is also where trace text is made printable.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.measure import Measurement
from rich.text import Text

from tracer.text.printable import printable_text

_NO_LINE_START = frozenset("，。、：；！？）》」』】〕〉”’,.;:!?)]}…%")
_NO_LINE_END = frozenset("（《「『【〔〈“‘([{")


def _may_break_before(previous: str, char: str) -> bool:
    if char in _NO_LINE_START or previous in _NO_LINE_END:
        return False
    if _number_and_word(previous, char) or _number_and_word(char, previous):
        return False  # 第2轮 stays whole: a number keeps 第 and its measure word beside it
    if previous.isspace():
        return not char.isspace()
    if char.isspace():
        return False
    return get_character_cell_size(previous) == 2 or get_character_cell_size(char) == 2


def _number_and_word(digit: str, other: str) -> bool:
    """An ASCII digit beside a Chinese character (第2, 2轮, 3条): one unit to the wrapper."""
    return digit.isascii() and digit.isdigit() and get_character_cell_size(other) == 2


#: Fewer characters than this never make a line of their own when a long word is cut.
_MIN_PIECE = 4


def _inside_word(plain: str, start: int, end: int) -> int:
    """Where to cut a word too long for the line, which runs on past ``end``: the last place
    before ``end`` where two of its parts meet (``BlockParam`` before ``Param``, ``tool_result``
    after ``_``, a path after ``/``), so an identifier splits into pieces that read as words
    and never leaves ``m）`` alone on the next line; ``end`` itself when it has none."""
    for j in range(end, start + _MIN_PIECE - 1, -1):
        before, after = plain[j - 1], plain[j]
        if after in _NO_LINE_START or not after.isascii() or not after.isalnum():
            continue
        camel = before.islower() and after.isupper()
        if camel or before in "_./-":
            return j
    return end


#: ASCII whitespace, as ``str.isspace`` finds it in ASCII.
_SPACES = frozenset(" \t\n\r\x0b\x0c")


def _cuts(plain: str, width: int) -> list[int]:
    """Where to cut ``plain`` so that each piece fits ``width`` cells (greedy).

    Most of what a trace holds is ASCII (JSON, code, shell output): :func:`_ascii_cuts` cuts it
    the same way with the rules inlined, a few times faster, which every step's redraw feels."""
    if plain.isascii():
        return _ascii_cuts(plain, width)
    return _any_cuts(plain, width)


def _ascii_cuts(plain: str, width: int) -> list[int]:
    """:func:`_any_cuts` for ASCII text: a character takes one cell, no character is wide, so
    a line may break only after whitespace (and never before closing punctuation)."""
    cuts: list[int] = []
    start, used, last_break = 0, 0, None
    for i, char in enumerate(plain):
        space = char in _SPACES
        if i > start and not space and plain[i - 1] in _SPACES and char not in _NO_LINE_START:
            last_break = i
        if used < width or i == start or space:
            used += 1
            continue
        if last_break is not None and last_break > start:
            cut = last_break
        else:
            cut = _inside_word(plain, start, i)
        if cut == i and char in _NO_LINE_START and i - 1 > start:
            cut = i - 1
        cuts.append(cut)
        start = cut
        used = len(plain[cut : i + 1].lstrip())
        last_break = next(
            (j for j in range(i, cut, -1) if _may_break_before(plain[j - 1], plain[j])), None
        )
    return cuts


def _any_cuts(plain: str, width: int) -> list[int]:
    """Where to cut ``plain`` so that each piece fits ``width`` cells (greedy).

    Each piece takes as much as fits and ends at the last place a break is allowed; only a run
    with no such place (a word longer than the line) is cut where it overflows. Spaces may hang
    past the edge, since they are stripped from the ends of lines.
    """
    cuts: list[int] = []
    start, used, last_break = 0, 0, None
    for i, char in enumerate(plain):
        if i > start and _may_break_before(plain[i - 1], char):
            last_break = i
        size = get_character_cell_size(char)
        if used + size <= width or i == start or char.isspace():
            used += size
            continue
        if last_break is not None and last_break > start:
            cut = last_break
        else:  # a word longer than the line: cut it where its parts meet, if it has any
            cut = _inside_word(plain, start, i)
        if cut == i and char in _NO_LINE_START and i - 1 > start:
            cut = i - 1  # a forced cut still keeps closing punctuation off the line start
        cuts.append(cut)
        start = cut
        # What was already passed belongs to the new line: its width and its break places.
        used = cell_len(plain[cut : i + 1].lstrip())
        last_break = next(
            (j for j in range(i, cut, -1) if _may_break_before(plain[j - 1], plain[j])), None
        )
    return cuts


def _pieces(line: Text, cuts: list[int]) -> list[Text]:
    out = []
    for piece in line.divide(cuts):
        piece.rstrip()
        if piece.plain[:1].isspace():  # a cut inside a run of spaces
            piece = piece[len(piece.plain) - len(piece.plain.lstrip()) :]
        out.append(piece)
    return out


def _hang(plain: str, width: int) -> int:
    """Where wrapped lines of ``plain`` start: under the last column that begins in the first
    half of the line (columns are parted by two or more spaces), else under its indentation."""
    indent = len(plain) - len(plain.lstrip(" "))
    column = indent
    half = width // 2
    at = plain.find("  ", indent)
    while 0 <= at < half:
        start = at + len(plain[at:]) - len(plain[at:].lstrip(" "))
        if start >= half or start >= len(plain) or plain[:start].isascii() is False:
            break
        column = start
        at = plain.find("  ", start)
    return column


def wrap_line(line: Text, width: int) -> list[Text]:
    """One line (no newlines) as lines of at most ``width`` cells.

    An indented line keeps its indentation on every line it wraps onto (a hanging indent), so
    git's ``  (use "git add"…`` or a nested JSON field still reads as nested once wrapped; a
    table row (columns parted by two spaces) hangs under its last column (:func:`_hang`).
    """
    plain = line.plain
    if cell_len(plain) <= width:
        return [line]
    cuts = _cuts(plain, width)
    indent = _hang(plain, width)
    if not cuts or not indent or indent > width // 2:
        return _pieces(line, cuts)
    first = line[: cuts[0]]
    first.rstrip()
    rest = line[cuts[0] :]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip()) :]
    narrower = width - indent
    out = [first]
    for piece in _pieces(rest, _cuts(rest.plain, narrower)):
        out.append(Text(" " * indent) + piece)
    return out


def wrap(text: Text, width: int) -> list[Text]:
    """All of ``text`` as lines of at most ``width`` cells (wide characters count two).

    Characters a terminal would obey (an ``ESC`` from a tool's output) are first written as
    visible escapes, so they are measured, wrapped and drawn like the rest of the line.
    """
    width = max(width, 2)
    lines: list[Text] = []
    for line in printable_text(text).split("\n", allow_blank=True):
        if "\t" in line.plain:
            line.expand_tabs(8)  # as Rich does before it wraps
        lines.extend(wrap_line(line, width))
    return lines


class Wrapped:
    """A Rich renderable: ``text`` wrapped by :func:`wrap` at whatever width Rich offers it.

    For widgets that hand their content to Rich (an option list's rows), so Chinese wraps there as
    it does in the pager: ``Option(Wrapped(text))``. ``str()`` gives the plain text.
    """

    def __init__(self, text: Text) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text.plain

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield Text("\n").join(wrap(self.text.copy(), options.max_width))

    def __rich_measure__(self, console: Any, options: Any) -> Measurement:
        return Measurement.get(console, options, self.text)
