"""Text from an input, made safe to print on a terminal.

A trace, a transcript or a scenario is often someone else's file, and any string in it can hold
bytes a terminal obeys rather than shows: ``ESC ] 0 ; … BEL`` sets the window title, ``ESC [ 2 J``
clears the screen, ``ESC ] 52 ; c ; …`` writes the clipboard (OSC 52, which also works over ssh),
and U+009B is the same CSI as ``ESC [`` on a terminal that reads 8-bit controls. The reading layer
(:mod:`tracer.files.untrusted`) keeps such strings, since they are data and a trace must round-trip;
every command that prints input-derived text passes it through :func:`printable` on the way out.

The rule: C0 controls (but tab), DEL and the C1 range become visible escapes (``\\x1b``, ``\\n``),
so what was one line stays one line; so do the bidirectional overrides and isolates, which can
make a line read differently from what it holds ("Trojan Source", CVE-2021-42574). Everything
else, Chinese included, is left alone. Claude Code renders transcripts through Ink, which writes
text as it is; its ``/export`` is a file, not a terminal. tracer's own words never contain these
characters, so a whole line can be passed through, ours and theirs together.

The replay draws Rich ``Text``, not strings: :func:`printable_text` gives the same treatment to
a styled text, moving its spans with the characters, so a styled ``ESC`` becomes a ``\\x1b``
in the same style. The replay calls it where a text is laid out in lines
(:func:`tracer.view.wrap.wrap` and the strip every one-line widget draws), which every panel
goes through, so the widgets need not know which of their strings came from the trace.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where it is used: the command line's start-up has no Rich in it
    from rich.text import Text

_UNSAFE_CHARS = "\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE_LINE_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NAMED = {"\n": "\\n", "\r": "\\r"}
#: A pattern a whole one-line string matches when it holds nothing :func:`printable` would
#: escape: a Textual ``Input``'s ``restrict``, so a paste with an ``ESC`` in it is refused.
PRINTABLE_LINE = "[^" + _UNSAFE_CHARS + "]*"


@functools.cache
def _unsafe(lines: bool) -> re.Pattern[str]:
    """The characters to escape (with ``lines``, newlines are not), compiled on first use: the
    two classes cost a millisecond to compile, paid by every command at start-up when they were
    compiled on import, though most lines printed are plain ASCII (see :func:`printable`)."""
    return re.compile(f"[{_UNSAFE_LINE_CHARS if lines else _UNSAFE_CHARS}]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def printable(text: object, *, lines: bool = False) -> str:
    """``text`` (any object, as ``str()`` gives it) with every character a terminal would obey
    written as a visible escape. With ``lines``, newlines stay (a document, not a one-line
    message)."""
    shown = str(text)
    if shown.isascii() and shown.isprintable():  # nothing to escape: no class needed
        return shown
    return _unsafe(lines).sub(_escape, shown)


def printable_json(text: str) -> str:
    """JSON text with the same treatment, still valid JSON of the same value.

    ``json.dumps`` escapes C0 controls itself, but with ``ensure_ascii=False`` it leaves DEL,
    the C1 range and the bidi controls as they are; here they become ``\\u`` escapes, which
    any JSON reader turns back into the same characters.
    """
    return _unsafe(True).sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def printable_text(text: Text) -> Text:
    """``text`` with :func:`printable`'s rule (newlines kept), each span still on its characters.

    A text with nothing to escape (every text tracer writes itself) comes back as the same
    object, so what the replay draws for an ordinary trace does not change by a cell.
    """
    plain = text.plain
    matches = list(_unsafe(True).finditer(plain))
    if not matches:
        return text
    from rich.text import Span, Text

    starts = [match.start() for match in matches]
    grown: list[int] = []  # after each match, how much longer the text has become
    pieces: list[str] = []
    last = total = 0
    for match in matches:
        shown = _escape(match)
        pieces += [plain[last : match.start()], shown]
        last = match.end()
        total += len(shown) - 1
        grown.append(total)
    pieces.append(plain[last:])

    def moved(offset: int) -> int:
        # An offset moves by the growth of every escape that starts before it, so a span that
        # covered a control character covers its whole escape.
        before = bisect_left(starts, offset)
        return offset + (grown[before - 1] if before else 0)

    out = Text(
        "".join(pieces),
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
    )
    out.spans = [Span(moved(s.start), moved(s.end), s.style) for s in text.spans]
    return out
