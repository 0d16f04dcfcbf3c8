"""Rich ``Text`` as plain data a browser can draw: lines of ``[text, style]`` segments.

The replay's renderers return Rich text whose styles are Rich style strings (``"bold cyan"``,
``"bold black on #e8d44d"``). A web page wants CSS classes instead, and a payload wants the same
line written once however many steps show it. So:

- :func:`style_class` maps a Rich style to a few class names (``b`` bold, ``i`` italic, ``d``
  dim, ``u`` underline, ``fg-cyan`` a colour, ``lit`` the lit background of "what changed",
  ``err`` the error background); ``page.css`` gives each its look, in light and dark;
- :func:`text_lines` cuts a ``Text`` into lines, each a list of segments; a segment with no
  style is a bare string, a styled one is ``[text, style number]``;
- :class:`Interner` numbers equal things once (the lines of a chunk of steps, the style classes).

Nothing here knows about steps or HTML.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any

from rich.style import Style
from rich.text import Text

#: Backgrounds with a meaning of their own in the replay (see ``render.LIT`` and ``ERROR``).
BACKGROUNDS = {"#e8d44d": "lit", "#b03030": "err"}

Segment = str | list[Any]
Line = str | list[Segment]


class Interner:
    """Numbers each distinct value in the order first seen; :attr:`items` lists them."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._ids: dict[Any, int] = {}

    def __contains__(self, key: Any) -> bool:
        return key in self._ids

    def add(self, value: Any, key: Any = None) -> int:
        key = value if key is None else key
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self.items)
            self.items.append(value)
        return found


@lru_cache(maxsize=256)
def style_class(style: str) -> str:
    """CSS class names for a Rich style string (empty when it changes nothing we draw)."""
    parsed = Style.parse(style) if style else Style()
    names = []
    for flag, name in (("bold", "b"), ("italic", "i"), ("dim", "d"), ("underline", "u")):
        if getattr(parsed, flag):
            names.append(name)
    background = parsed.bgcolor.name.lower() if parsed.bgcolor else None
    if background:
        names.append(BACKGROUNDS.get(background, "hl"))
    elif parsed.color is not None and not parsed.color.is_default:
        names.append("fg-" + parsed.color.name.lower().lstrip("#"))
    return " ".join(names)


def text_lines(text: Text, styles: Interner) -> list[Line]:
    """``text`` as lines of segments (trailing empty lines dropped).

    Works on the text's plain string and spans directly (``Text.split`` builds a ``Text`` per
    line and is most of the cost on a big trace). A Text's own base style is left out, as the
    replay's pager leaves it out (it renders each line's spans only), so the page looks like the
    terminal.
    """
    plain = text.plain
    size = len(plain)
    spans = [(min(s.start, size), min(s.end, size), str(s.style)) for s in text.spans]
    spans = [s for s in spans if s[1] > s[0]]
    cuts = {0, size}
    for a, b, _ in spans:
        cuts.add(a)
        cuts.add(b)
    at = plain.find("\n")
    while at >= 0:
        cuts.add(at)
        cuts.add(at + 1)
        at = plain.find("\n", at + 1)
    lines: list[list[Segment]] = [[]]
    for a, b in itertools.pairwise(sorted(cuts)):
        piece = plain[a:b]
        if piece == "\n":
            lines.append([])
            continue
        parts = [style for s, e, style in spans if s <= a and e >= b and style]
        name = style_class(" ".join(parts)) if parts else ""
        line = lines[-1]
        if line and _class_of(line[-1], styles) == name:  # same look: one segment
            line[-1] = _join(line[-1], piece)
        elif name:
            line.append([piece, styles.add(name)])
        else:
            line.append(piece)
    out: list[Line] = [
        "" if not line else line[0] if len(line) == 1 and isinstance(line[0], str) else line
        for line in lines
    ]
    while out and out[-1] == "":
        out.pop()
    return out


def _class_of(segment: Segment, styles: Interner) -> str:
    return "" if isinstance(segment, str) else styles.items[segment[1]]


def _join(segment: Segment, piece: str) -> Segment:
    if isinstance(segment, str):
        return segment + piece
    return [segment[0] + piece, segment[1]]


def plain_of(line: Line) -> str:
    """A line's text without its styles (for tests and search)."""
    if isinstance(line, str):
        return line
    return "".join(s if isinstance(s, str) else s[0] for s in line)
