"""Folding: long text is cut to a few lines with a note of what was left out.

A tool can return a megabyte; drawing it all would freeze the screen and teach nothing. Every
piece of content the replay shows passes through :func:`fold` first, so the work per step stays
bounded whatever the trace holds.

The reader can ask for more (Enter or ``o``): inside ``with unfolded():`` the limits rise to
``OPEN_LINES`` lines and ``OPEN_CHARS`` characters, enough for any real tool output, still bounded
so one huge result cannot freeze the screen. The renderers also check :func:`is_unfolded` to list
a resent request message by message and to print a ``tool_result`` in full.

Two more modes serve renderers other than the terminal (the web page of
:mod:`tracer.export.html`): inside ``with without_key_hints():`` the words that name a key ("o:
unfold", "b: jump") are left out, since a page has buttons, not those keys; inside
``with whole():`` nothing is cut at all (``export --format html --full``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from rich.text import Text

MAX_LINES = 40
MAX_CHARS = 4000
MAX_LINE_WIDTH = 400
OPEN_LINES = 5000
OPEN_CHARS = 400_000

_UNFOLDED: ContextVar[bool] = ContextVar("unfolded", default=False)
_KEY_HINTS: ContextVar[bool] = ContextVar("key_hints", default=True)
_WHOLE: ContextVar[bool] = ContextVar("whole", default=False)


@contextmanager
def without_key_hints() -> Iterator[None]:
    """Render without the words that name the replay's keys (for a page, not a terminal)."""
    token = _KEY_HINTS.set(False)
    try:
        yield
    finally:
        _KEY_HINTS.reset(token)


def key_hint(text: str) -> str:
    """``text`` (a key's name and what it does) when key hints are shown, else nothing."""
    return text if _KEY_HINTS.get() else ""


@contextmanager
def whole() -> Iterator[None]:
    """Render with no fold at all: every output kept whole, however long."""
    token = _WHOLE.set(True)
    try:
        yield
    finally:
        _WHOLE.reset(token)


@contextmanager
def unfolded() -> Iterator[None]:
    """Render with everything unfolded (the app's Enter / ``o``)."""
    token = _UNFOLDED.set(True)
    try:
        yield
    finally:
        _UNFOLDED.reset(token)


@contextmanager
def folded() -> Iterator[None]:
    """Render folded even inside :func:`unfolded` (one-line summaries stay one line)."""
    token = _UNFOLDED.set(False)
    try:
        yield
    finally:
        _UNFOLDED.reset(token)


def is_unfolded() -> bool:
    return _UNFOLDED.get()


def fold(
    text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS, lang: str = "en"
) -> tuple[str, str | None]:
    """``text`` cut to ``max_lines`` lines and ``max_chars`` characters, noting any cut (the
    note in ``lang``)."""
    if _WHOLE.get():
        return text, None
    if is_unfolded():
        max_lines, max_chars = max(max_lines, OPEN_LINES), max(max_chars, OPEN_CHARS)
    head = text[:max_chars]
    lines = head.split("\n")
    cut_lines = len(lines) > max_lines
    widest = OPEN_CHARS if is_unfolded() else MAX_LINE_WIDTH
    lines = [line if len(line) <= widest else line[:widest] + "…" for line in lines[:max_lines]]
    shown = "\n".join(lines)
    if not cut_lines and len(text) <= max_chars:
        return shown, None
    total_lines = text.count("\n") + 1
    if lang == "zh":
        note = (
            f"… 已折叠：显示{total_lines}行中的{len(lines)}行，"
            f"{len(text)}个字符中的{len(shown)}个{key_hint('（按 o 展开）')}"
        )
    else:
        note = (
            f"… folded: showing {len(lines)} of {total_lines} lines, "
            f"{len(shown)} of {len(text)} chars{key_hint(' (o: unfold)')}"
        )
    return shown, note


def folded_text(text: str, style: str = "", max_lines: int = MAX_LINES, lang: str = "en") -> Text:
    """A Rich ``Text`` of folded content, with the fold note (in ``lang``) dimmed on its own
    line."""
    shown, note = fold(text, max_lines=max_lines, lang=lang)
    out = Text(shown, style=style)
    if note:
        out.append("\n" + note, style="dim italic")
    return out


def as_json(value: Any) -> str:
    """Compact but readable JSON for a value (non-ASCII kept)."""
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return repr(value)


def short(value: Any, width: int = 60) -> str:
    """One line, at most ``width`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
