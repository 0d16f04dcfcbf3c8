"""Argument types the sub-commands share: a number is checked where argparse reads it.

argparse calls a ``type`` with the word the user typed; an :class:`argparse.ArgumentTypeError`
it raises becomes the usage error :class:`tracer.cli.main.Parser` prints as one line, naming the
option (``tracer: record: argument --max-turns: must be at least 1``). So a bad number never
reaches the code that would use it, and every command says it the same way.

``-o -`` is standard output to most command-line tools. A command that prints unless told
otherwise takes it so (:func:`printed_or_file`); one that always writes a file, renamed into place
once whole (a trace), refuses it (:func:`file_not_stdout`) rather than writing a file named ``-``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeVar

    _Name = TypeVar("_Name")


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


def printed_or_file(text: str) -> Path | None:
    """The ``type`` of ``-o`` where no ``-o`` prints the output: ``-`` prints it too."""
    if text == "-":
        return None
    from pathlib import Path  # only for the commands that take one (see tracer.files.pathnames)

    return Path(text)


def file_not_stdout(name: Callable[[str], _Name]) -> Callable[[str], _Name]:
    """The ``type`` of ``-o`` where the output is always a file: ``name`` of the word, and ``-``
    refused in one line, naming the option."""

    def parse(text: str) -> _Name:
        if text == "-":
            raise argparse.ArgumentTypeError(
                "a trace is written to a file, not to standard output: give a path "
                "(./- for a file named -)"
            )
        return name(text)

    return parse
