"""The ``tracer`` command line.

Every sub-command imports what it needs only when it runs: ``tracer --help``, ``show``,
``hooks`` and ``validate`` never import ``anthropic`` (over a second on its own) or Textual.
Bad input of any kind ends as one line on stderr and exit code 2, never a traceback.

Each sub-command registers itself from a small module (:data:`COMMAND_MODULES`): ``record``
from :mod:`tracer.cli.record`; ``hooks``, ``show`` and ``validate`` from :mod:`tracer.cli.read`;
the ones that live with their layer (replay, tour, doctor, import, export) from that layer's
``command`` module. Only the module of the command named is imported (all of them for ``tracer
--help``), and this module imports next to nothing at the top, so ``tracer --version`` and
``tracer import --help`` start in a few tens of milliseconds (``bench/startup.py``). They all
get :class:`Parser` (argparse hands a parser's class down to its sub-parsers), so a usage error
anywhere (``--stage bogus``, ``--size 10x5``) is one line too, not argparse's usage block; their
number types are in :mod:`tracer.arguments`.

Every ``TRACE`` argument may name a bundled recording (``tracer show 01-main-walk``):
:func:`main` resolves it through :func:`tracer.files.paths.resolve_trace` once, for every command.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence

from tracer import __version__
from tracer.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

#: Which module registers each sub-command (``register(subparsers)``): the recorder's and the
#: reader's own, then the layers'. Only the one a command line names is imported.
COMMAND_MODULES = {
    "record": "tracer.cli.record",
    "hooks": "tracer.cli.read",
    "show": "tracer.cli.read",
    "validate": "tracer.cli.read",
    "replay": "tracer.replay.command",
    "tour": "tracer.replay.tour_command",
    "doctor": "tracer.doctor.command",
    "import": "tracer.importers.command",
    "export": "tracer.export.command",
}


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` reads it (``COLUMNS``, else the
    terminal of stdout, else 80), without importing shutil (see :meth:`Parser._get_formatter`)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Read once a parser, not at each of the formatters argparse makes (one for every
        # add_argument): the same width, for a parser built and used in one command line.
        self._width = _columns() - 2
        super().__init__(*args, **kwargs)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter asks shutil for the terminal's width (every add_argument makes
        # one), and shutil brings bz2, lzma and fnmatch: about 7M instructions of every start.
        # The same width, read the same way, minus the 2 argparse takes off.
        return self.formatter_class(prog=self.prog, width=self._width)  # type: ignore[call-arg]

    def add_subparsers(self, **kwargs: Any) -> Any:
        # argparse names the sub-commands' parsers after this one's usage up to its first
        # positional, formatted for the purpose; ours have none before the sub-command, so
        # that is this parser's own name (what argparse would format, without formatting).
        if self.usage is None and not self._get_positional_actions():
            kwargs.setdefault("prog", self.prog)
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> NoReturn:
        # self.prog is "tracer replay" for a sub-command: say which one, then what was wrong.
        command = self.prog.removeprefix("tracer").strip()
        where = f"{command}: " if command else ""
        self.exit(
            2,
            f"tracer: {where}{message} (see tracer {command} --help)\n".replace(
                "tracer  --help", "tracer --help"
            ),
        )


def build_parser(command: str | None = "", then: str = "") -> argparse.ArgumentParser:
    """The parser: every sub-command (``command`` empty), only the named one, or none (``None``).

    A command line that names its command needs only that command's module: ``tracer import
    --help`` then imports no Textual, no doctor, no tour (start-up is ``bench/startup.py``'s to
    measure). ``tracer --help`` and a misspelt command get them all, to list them. Likewise a
    command with sub-commands of its own (a module's ``SUBCOMMANDS``) builds only the parser of
    the one ``then`` names (``tracer import claude-code`` not ``api-log``'s: a parser costs as
    much to build as a module to import), and all of them for any other word."""
    parser = Parser(
        prog="tracer",
        description="Record an agent loop built like Claude Code's query.ts and watch each tool "
        "result travel back to the model: mapping, wrapping, appending, resending.",
    )
    parser.add_argument("--version", action="version", version=f"tracer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    if command is None:
        return parser
    wanted = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    for name in dict.fromkeys(wanted):  # in order, each module once
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that layer is not built yet
            raise
        if then and then in getattr(module, "SUBCOMMANDS", ()):
            module.register(sub, only=then)
        else:
            module.register(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command a command line names ("" when it names none it knows, so that help and
    argparse's "invalid choice" list them all), or ``None`` for a bare ``--version``."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None and "--version" in argv and "-h" not in argv and "--help" not in argv:
        return None
    return first if first in COMMAND_MODULES else ""


def _then(argv: Sequence[str], command: str | None) -> str:
    """The word right after the command's (``claude-code`` in ``tracer import claude-code``):
    the sub-command the command's own parser hands the rest of the line to. Empty when an
    option comes between (``tracer import -h claude-code`` shows ``import``'s help, which lists
    every sub-command)."""
    if not command:
        return ""
    at = next(i for i, a in enumerate(argv) if a == command)
    return argv[at + 1] if at + 1 < len(argv) else ""


def _owner(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The innermost sub-command the words name (``tracer import claude-code``), whose help a
    wrong option should point to; the top parser when they name none."""
    owner = parser
    for word in argv:
        subparsers = getattr(owner, "_subparsers", None)
        actions = subparsers._group_actions if subparsers is not None else []
        choices = next((a.choices for a in actions if isinstance(a.choices, dict)), {})
        owner = choices.get(word, owner)
    return owner


#: Commands that read their input once, print and exit.
BATCH_COMMANDS = frozenset({"show", "hooks", "validate", "doctor", "export", "import"})


def is_batch(argv: Sequence[str]) -> bool:
    """Whether the command line runs a batch command (one of :data:`BATCH_COMMANDS`)."""
    return _command_of(argv) in BATCH_COMMANDS


@contextlib.contextmanager
def without_cycle_collection(pause: bool) -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a batch command.

    A batch command builds a large, acyclic web of events and facts (reference counting frees
    it) and keeps it until it exits. The cyclic collector would still walk that growing heap
    again and again, finding nothing: on a 10,000-turn trace that was a third of the doctor's
    time and made it grow faster than the trace (``bench/scaling.py``). The replay and the
    recorder run long and keep their collector.
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def main(argv: Sequence[str] | None = None, *, ends_process: bool = False) -> int:
    """Run one command line; its exit code.

    ``ends_process``: the caller (the console script) ends the process when this returns and
    calls it with the cycle collector already paused. A batch command then keeps it paused to
    the end, start-up included; any other command gets it back once its parser is built. Each
    time the collector was given back it walked every object made while it was paused (the
    modules' classes and functions, then what the command kept): three walks, 2.5% of the CPU
    of ``tracer import`` on a real session, that never freed anything."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # Start-up (the command's module imported, the parser built) makes only what lives as
    # long as the process: the cycle collector, paused, does not walk it for nothing.
    with without_cycle_collection(True):
        command = _command_of(argv)
        parser = build_parser(command, _then(argv, command))
        try:
            args, unknown = parser.parse_known_args(argv)
            if unknown:  # argparse would blame the top parser: say the sub-command, and its help
                from tracer.text.printable import printable

                _owner(parser, argv).error(
                    f"unrecognized arguments: {printable(' '.join(unknown))}"
                )
        except SystemExit as exc:  # --help, --version, or a usage error already printed
            return int(exc.code or 0) if not isinstance(exc.code, str) else 2
        from tracer.interrupts import Interrupts
        from tracer.text.printable import printable

        Interrupts.process_ends = ends_process
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    batch = args.command in BATCH_COMMANDS
    if ends_process and not batch:
        gc.enable()  # a long-running command (the replay, record) keeps its collector

    if getattr(args, "trace", None) is not None:
        from tracer.files.paths import resolve_trace

        args.trace = resolve_trace(args.trace)
    try:
        # A batch command takes SIGTERM and SIGHUP as it takes Ctrl-C, so what it was writing
        # is removed or renamed into place, never left half-written, and it exits 128 + the
        # signal's number. The others too until they take the signals themselves (record's
        # session, the replay's app): a stop while they import (Textual, the SDK) or set up
        # (record's temporary folders) waits for the import, then ends them the same way.
        with without_cycle_collection(batch), Interrupts():
            return int(args.func(args) or 0)
    except UserError as exc:
        print(printable(f"tracer: {exc}"), file=sys.stderr)  # it may quote the input
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:
        name = getattr(exc, "name", "Ctrl-C")
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            print(f"tracer: interrupted ({name})", file=sys.stderr)
        return int(getattr(exc, "exit_code", 130))


if __name__ == "__main__":
    raise SystemExit(main())
