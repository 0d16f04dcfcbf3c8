"""Sizes as Claude Code shows them to the model, shared by the result check and Bash.

``formatFileSize`` (``utils/format.ts``), the 2,000-character preview of a
``<persisted-output>`` message (``PREVIEW_SIZE_BYTES`` in ``utils/toolResultStorage.ts``), and
the cut ``formatError`` (``utils/toolErrors.ts``) makes in an error text over 10,000 characters.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

PREVIEW_SIZE_CHARS = 2000
ERROR_TEXT_LIMIT = 10_000
"""Longer error texts keep their first and last half (``formatError``)."""


def cut_error_text(text: str) -> str:
    """An error text as ``formatError`` gives it to the model: whole up to 10,000 characters,
    else its first and last 5,000 around a note of how many were cut. A thrown error never
    reaches the size check that persists large results, so this is its only limit."""
    if len(text) <= ERROR_TEXT_LIMIT:
        return text
    half = ERROR_TEXT_LIMIT // 2
    cut = len(text) - ERROR_TEXT_LIMIT
    return f"{text[:half]}\n\n... [{cut} characters truncated] ...\n\n{text[-half:]}"


def format_file_size(size: int) -> str:
    """``N bytes``, ``x.yKB`` or ``x.yMB``, a trailing ``.0`` dropped (Claude Code's format)."""
    if size < 1024:
        return f"{size} bytes"
    for unit, scale in (("KB", 1024), ("MB", 1024 * 1024)):
        if size < scale * 1024 or unit == "MB":
            # JavaScript's toFixed(1) rounds an exact tie up (1.25 → 1.3); format() would not.
            rounded = Decimal(size / scale).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
            text = str(rounded).removesuffix(".0")
            return f"{text}{unit}"
    raise AssertionError("unreachable")
