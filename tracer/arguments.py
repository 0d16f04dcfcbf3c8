"""Argument types the sub-commands share: a number is checked where argparse reads it.

argparse calls a ``type`` with the word the user typed; an :class:`argparse.ArgumentTypeError`
it raises becomes the usage error :class:`tracer.cli.main.Parser` prints as one line, naming the
option (``tracer: record: argument --max-turns: must be at least 1``). So a bad number never
reaches the code that would use it, and every command says it the same way.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(least: int) -> Callable[[str], int]:
    """The ``type`` of an option that takes a whole number of at least ``least``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}")
        return value

    return parse


def seconds(text: str) -> float:
    """The ``type`` of a wait: more than 0 and at most an hour (no nan, no inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds")
    return value
