"""Rich ``Text`` as plain data a browser can draw: lines of ``[text, style]`` segments.

The replay's renderers return Rich text whose styles are Rich style strings (``"bold cyan"``,
``"bold black on #e8d44d"``). A web page wants CSS classes instead, and a payload wants the same
line written once however many steps show it. So:

- :func:`style_class` maps a Rich style to a few class names (``b`` bold, ``i`` italic, ``d``
  dim, ``u`` underline, ``fg-cyan`` a colour, ``lit`` the lit background of "what changed",
  ``err`` the error background); ``page.css`` gives each its look, in light and dark;
- :func:`text_lines` cuts a ``Text`` into lines, each a tuple of segments; a segment with no
  style is a bare string, a styled one is ``(text, style number)`` (in the JSON, arrays);
- :class:`Interner` numbers equal things once (the lines of a chunk of steps, the style classes).

Every text passes through :func:`tracer.text.printable.printable_text` first, the rule the terminal
views follow: a control character (ESC, NUL, …) or a bidirectional override from the trace
reaches the page as a visible escape (``\\x1b``, ``\\u202e``), so a tool output cannot make a
line read differently from what it holds ("Trojan Source") nor put raw controls in the DOM.

Nothing here knows about steps or HTML.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any

from rich.style import Style
from rich.text import Text

from tracer.text.printable import printable_text

#: Backgrounds with a meaning of their own in the replay (see ``render.LIT`` and ``ERROR``).
BACKGROUNDS = {"#e8d44d": "lit", "#b03030": "err"}

Segment = str | tuple[str, int]
Line = str | tuple[Segment, ...]
"""A line: a bare string when it has one unstyled segment. Tuples, so that a line is its own key
in an :class:`Interner`; JSON writes them as arrays."""


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

    The text is cut where its look changes (:func:`_runs`), each stretch at its line breaks,
    and neighbours with the same look become one segment.
    """
    text = printable_text(text)  # the same object when nothing needs escaping
    plain = text.plain
    size = len(plain)
    spans = []
    for span in text.spans:
        start, end = min(span.start, size), min(span.end, size)
        style = str(span.style)
        if end > start and style:  # a span without a style changes nothing drawn
            spans.append((start, end, style))
    lines: list[list[Segment]] = [[]]
    line = lines[0]
    last = ""  # the look of the current line's last segment
    for a, b, name in _runs(spans, size):
        piece = plain[a:b]
        for number, part in enumerate(piece.split("\n") if "\n" in piece else (piece,)):
            if number:  # a line break inside the piece
                line = []
                lines.append(line)
            if not part:
                continue
            if line and last == name:  # same look: one segment
                line[-1] = _join(line[-1], part)
            elif name:
                line.append((part, styles.add(name)))
            else:
                line.append(part)
            last = name
    out: list[Line] = [
        "" if not line else line[0] if len(line) == 1 and isinstance(line[0], str) else tuple(line)
        for line in lines
    ]
    while out and out[-1] == "":
        out.pop()
    return out


def _runs(spans: list[tuple[int, int, str]], size: int) -> list[tuple[int, int, str]]:
    """``(start, end, class names)`` of each stretch of one look, covering ``0..size``."""
    if all(spans[k - 1][1] <= spans[k][0] for k in range(1, len(spans))):
        # The usual Text, built by appends: spans one after another, none inside another.
        out, at = [], 0
        for start, end, style in spans:
            if start > at:
                out.append((at, start, ""))
            out.append((start, end, style_class(style)))
            at = end
        if at < size:
            out.append((at, size, ""))
        return out
    # Spans inside spans (a base style, a highlight): sweep, with the spans in force at each
    # place combined in the order the Text holds them, as Rich combines them.
    opens: dict[int, list[int]] = {}
    shuts: dict[int, list[int]] = {}
    for k, (start, end, _style) in enumerate(spans):
        opens.setdefault(start, []).append(k)
        shuts.setdefault(end, []).append(k)
    names: dict[tuple[int, ...], str] = {(): ""}
    active: list[int] = []
    out = []
    for a, b in itertools.pairwise(sorted({0, size, *opens, *shuts})):
        ended = shuts.get(a)
        if ended:
            active = [k for k in active if k not in ended]
        started = opens.get(a)
        if started:
            active = sorted(active + started)
        key = tuple(active)
        name = names.get(key)
        if name is None:
            name = names[key] = style_class(" ".join(spans[k][2] for k in key))
        out.append((a, b, name))
    return out


def _join(segment: Segment, piece: str) -> Segment:
    if isinstance(segment, str):
        return segment + piece
    return (segment[0] + piece, segment[1])


def plain_of(line: Line) -> str:
    """A line's text without its styles (for tests and search)."""
    if isinstance(line, str):
        return line
    return "".join(s if isinstance(s, str) else s[0] for s in line)
