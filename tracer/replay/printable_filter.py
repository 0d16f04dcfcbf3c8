"""The last wall between a trace and the terminal: a Textual line filter.

The replay makes trace text printable where it is laid out
(:func:`tracer.text.printable.printable_text` in :func:`tracer.view.wrap.wrap` and in the one-line
strips), so an ``ESC`` shows as ``\\x1b``. Some strings reach the screen another way: a border
title, a notification, an option list's row, what is typed in an input. Textual keeps ``ESC``, the
C1 range and the bidi controls in a segment's text (Rich drops only BEL, BS, VT, FF and CR), and the
terminal would obey them.

Textual passes every line of every widget, borders included, through the app's line filters
(``App.get_line_filters``, the hook its own monochrome and dim filters use) just before the
screen is written. :class:`PrintableFilter` drops those characters there. Rich gives each a
width of zero cells, so dropping them changes no layout; and the app's own escapes (colours,
cursor moves, the clipboard's OSC 52) are not segment text, so they pass untouched.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

_OBEYED = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What :func:`tracer.text.printable.printable` escapes; a tab is left for Textual to expand."""


class PrintableFilter(LineFilter):
    """Drops, from a line about to be written, every character a terminal would obey."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not _OBEYED.search("".join(segment.text for segment in segments)):
            return segments  # nearly every line: one search, nothing copied
        return [
            Segment(_OBEYED.sub("", text), style, control) if not control else segment
            for segment in segments
            for text, style, control in (segment,)
        ]


__all__ = ["PrintableFilter"]
