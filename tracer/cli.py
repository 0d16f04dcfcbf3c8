"""The ``tracer`` command line.

Every sub-command imports what it needs only when it runs: ``tracer --help``, ``show``,
``hooks`` and ``validate`` never import ``anthropic`` (over a second on its own) or Textual.
Bad input of any kind ends as one line on stderr and exit code 2, never a traceback.

Each sub-command registers itself from a small module that imports nothing heavy at the top:
``record`` from :mod:`tracer.cli_record`; ``hooks``, ``show`` and ``validate`` from
:mod:`tracer.cli_read`; the ones that live with their layer (replay, tour, doctor, import,
export) from that layer's ``command`` module. They all get :class:`Parser` (argparse hands a
parser's class down to its sub-parsers), so a usage error anywhere (``--stage bogus``, ``--size
10x5``) is one line too, not argparse's usage block; their number types are in
:mod:`tracer.cli_args`.

Every ``TRACE`` argument may name a bundled recording (``tracer show 01-main-walk``):
:func:`main` resolves it through :func:`tracer.paths.resolve_trace` once, for every command.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from tracer import __version__, cli_read, cli_record
from tracer.errors import UserError
from tracer.interrupts import Interrupts
from tracer.paths import resolve_trace
from tracer.printable import printable

#: Sub-commands registered by other layers: (module with ``register(subparsers)``).
PLUGIN_COMMANDS = (
    "tracer.replay.command",
    "tracer.tour.command",
    "tracer.doctor.command",
    "tracer.importers.command",
    "tracer.export.command",
)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    commands: dict[str, argparse.ArgumentParser] = {}  # noqa: RUF012 (set on the top parser)
    """The sub-commands' parsers, by name."""

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


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tracer",
        description="Record an agent loop built like Claude Code's query.ts and watch each tool "
        "result travel back to the model: mapping, wrapping, appending, resending.",
    )
    parser.add_argument("--version", action="version", version=f"tracer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # (a wrong option is the sub-command's error: see main)

    # The commands that are the recorder's and the reader's own, then the layers' commands.
    cli_record.register(sub)
    cli_read.register(sub)
    for name in PLUGIN_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that layer is not built yet
            raise
        module.register(sub)
    return parser


#: Commands that read their input once, print and exit.
BATCH_COMMANDS = frozenset({"show", "hooks", "validate", "doctor", "export", "import"})


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # argparse would blame the top parser: say the sub-command, and its help
            owner = parser.commands.get(getattr(args, "command", None) or "", parser)
            owner.error(f"unrecognized arguments: {printable(' '.join(unknown))}")
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if getattr(args, "trace", None) is not None:
        args.trace = resolve_trace(args.trace)
    batch = args.command in BATCH_COMMANDS
    try:
        # A batch command takes SIGTERM and SIGHUP as it takes Ctrl-C, so what it was writing
        # is removed or renamed into place, never left half-written, and it exits 128 + the
        # signal's number. (record keeps its own; the replay's app takes them in its loop.)
        with without_cycle_collection(batch), Interrupts() if batch else contextlib.nullcontext():
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
