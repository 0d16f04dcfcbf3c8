"""``tracer hooks``, ``show`` and ``validate``: read a trace and print it as lines of text.

The three light commands: each reads a trace once, prints, and exits, so each starts fast (none
imports ``anthropic`` or Textual: ``tests/test_cli_imports.py`` checks). What a reader noticed
about the file's end (a torn last line, no ``terminal`` event) goes to stderr as a ``note:``, so
the lines on stdout stay what the trace says.

Registered by :mod:`tracer.cli.main`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracer.text.printable import printable


def register(sub: Any) -> None:
    _command(
        sub,
        "hooks",
        _hooks,
        "print the chapter's [DEBUG] lines from a trace",
        "Print the three [DEBUG] lines the chapter adds to Claude Code's source "
        "(the tool result's name, is_error and content length; the loop's turn and message "
        "count; needsFollowUp and the tool_use blocks), as the recorded session printed them.",
    )
    _command(
        sub,
        "show",
        _show,
        "list a trace step by step, one line per step",
        "List every step of a trace, one line each: its number (as tracer replay "
        "--step counts), its turn, its kind and what it holds; a subagent's loop is indented "
        "between its start and end.",
    )
    _command(
        sub,
        "validate",
        _validate,
        "check a trace against the event schema",
        "Check every event of a trace against the schema (tracer/trace/schema.json) "
        "and every reference between events; a trace that validates opens in every other "
        "command. Problems are one line each, file:line: what, and exit code 1 (2 when the "
        "file cannot be read at all).",
    )


def _command(
    sub: Any, name: str, run: Callable[[argparse.Namespace], int], help_: str, description: str
) -> None:
    """A command that takes one TRACE (a file or a bundled recording's name)."""
    parser = sub.add_parser(name, help=help_, description=description)
    parser.add_argument("trace", type=Path, metavar="TRACE")
    parser.set_defaults(func=run)


def _hooks(args: argparse.Namespace) -> int:
    from tracer.trace.hooks import hook_lines
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    for line in hook_lines(reader):  # tracer-only lines are marked as such
        print(printable(line))
    _torn_note(reader)
    return 0


def _show(args: argparse.Namespace) -> int:
    from tracer.cli.show import show_lines, token_line
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    for line in show_lines(reader):
        print(printable(line))
    tokens = token_line(reader)
    if tokens:
        print(printable(tokens))
    _torn_note(reader)
    return 0


def _validate(args: argparse.Namespace) -> int:
    from tracer.trace.schema import validate_trace

    count, problems, notes = validate_trace(args.trace)
    for note in notes:
        print(printable(f"note: {note}"), file=sys.stderr)
    for problem in problems:
        print(printable(problem))
    if problems:
        stopped = problems[-1].endswith("not checked")
        found = f"{len(problems) - 1}+" if stopped else str(len(problems))
        print(printable(f"{args.trace}: {found} problem(s) in {count} events"), file=sys.stderr)
        return 1
    print(printable(f"{args.trace}: valid ({count} events)"))
    return 0


def _torn_note(reader: object) -> None:
    """What the reader noticed about the file's end: a torn last line, a missing ending."""
    for notice in (reader.torn_notice(), reader.incomplete_notice()):  # type: ignore[attr-defined]
        if notice:
            print(printable(f"note: {reader.path}: {notice}"), file=sys.stderr)  # type: ignore[attr-defined]
