"""The ``tracer`` command line.

Every sub-command imports what it needs only when it runs: ``tracer --help``, ``show``,
``hooks`` and ``validate`` never import ``anthropic`` (over a second on its own) or Textual.
Bad input of any kind ends as one line on stderr and exit code 2, never a traceback.

Sub-commands that live with their layer (replay, doctor, import, export) register themselves
through a small ``command`` module that imports nothing heavy at the top. They all get
:class:`Parser` (argparse hands a parser's class down to its sub-parsers), so a usage error
anywhere (``--stage bogus``, ``--size 10x5``) is one line too, not argparse's usage block.

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
from pathlib import Path
from typing import NoReturn

from tracer import __version__
from tracer.errors import UserError
from tracer.paths import CHECKOUT, resolve_scenario, resolve_trace
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

    rec = sub.add_parser(
        "record",
        help="run a session and write its trace",
        description="Run a scripted scenario (offline) or a prompt against the "
        "real API, writing every stage to a JSON-lines trace.",
    )
    what = rec.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--scenario",
        metavar="FILE",
        help="a scenario YAML file, or a bundled scenario's name (01-main-walk)",
    )
    what.add_argument(
        "--prompt",
        metavar="TEXT",
        help="a prompt for the real model (needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)",
    )
    what.add_argument(
        "--all",
        action="store_true",
        help="re-record every bundled scenario: into the clone's recordings/, or into --out DIR",
    )
    rec.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="with --all: the folder to write into (needed when tracer is installed, not cloned)",
    )
    rec.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="TRACE",
        help="where to write the trace (default: the scenario's name in the current directory)",
    )
    rec.add_argument(
        "--debug",
        action="store_true",
        help="print the chapter's [DEBUG] lines to stderr as they happen",
    )
    rec.add_argument("--max-turns", type=_positive, metavar="N", help="override max_turns")
    rec.add_argument("--model", default=None, help="model for --prompt")
    rec.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="RULE",
        help="permission rule to allow, e.g. Read or 'Bash(git status:*)'; repeatable, and "
        "added to a scenario's own rules",
    )
    rec.add_argument(
        "--deny", action="append", default=[], metavar="RULE", help="permission rule to deny"
    )
    rec.add_argument(
        "--workspace",
        type=Path,
        metavar="DIR",
        help="with --prompt: copy DIR into the throwaway workspace (refused: the root, your "
        "home, system folders, and places that hold secrets such as ~/.ssh, ~/.aws, /etc, /var, "
        "/root, unless --i-know)",
    )
    rec.add_argument(
        "--i-know",
        action="store_true",
        help="let --workspace copy a folder that may hold secrets (~/.ssh, /etc, /var, /root…)",
    )
    rec.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="longest wait for the API: for an answer, for the next piece of a stream, or for "
        "content while it only sends pings (default 60; connecting: at most 10). A request gets "
        "at most 3 HTTP attempts in all, each one in the trace",
    )
    rec.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run Bash and set-up commands in a sandbox (bwrap): as nobody without capabilities, "
        "own PID namespace and /proc, no network, only the workspace writable, a seccomp filter "
        "(default: on in every mode where bwrap starts; a scenario may say sandbox: false). "
        "--no-sandbox gives all of that up: commands then see /proc/$PPID and every process, "
        "write wherever you can and use the network (as root, they run under a uid of their "
        "own that owns only the workspace)",
    )
    rec.add_argument(
        "--allow-network",
        action="store_true",
        help="let sandboxed commands use the network",
    )
    rec.set_defaults(func=_record)

    hooks = sub.add_parser(
        "hooks",
        help="print the chapter's [DEBUG] lines from a trace",
        description="Print the three [DEBUG] lines the chapter adds to Claude Code's source "
        "(the tool result's name, is_error and content length; the loop's turn and message "
        "count; needsFollowUp and the tool_use blocks), as the recorded session printed them.",
    )
    hooks.add_argument("trace", type=Path, metavar="TRACE")
    hooks.set_defaults(func=_hooks)

    show = sub.add_parser(
        "show",
        help="list a trace step by step, one line per step",
        description="List every step of a trace, one line each: its number (as tracer replay "
        "--step counts), its turn, its kind and what it holds; a subagent's loop is indented "
        "between its start and end.",
    )
    show.add_argument("trace", type=Path, metavar="TRACE")
    show.set_defaults(func=_show)

    val = sub.add_parser(
        "validate",
        help="check a trace against the event schema",
        description="Check every event of a trace against the schema (tracer/trace/schema.json) "
        "and every reference between events; a trace that validates opens in every other "
        "command. Problems are one line each, file:line: what, and exit code 2.",
    )
    val.add_argument("trace", type=Path, metavar="TRACE")
    val.set_defaults(func=_validate)

    for name in PLUGIN_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that layer is not built yet
            raise
        module.register(sub)
    return parser


def _scenario_path(arg: str) -> Path:
    """``--scenario``: a file or a bundled name; a name that is neither lists the bundled ones."""
    path = resolve_scenario(arg)
    looks_like_a_file = arg.endswith((".yaml", ".yml")) or "/" in arg.removeprefix("faults/")
    if path.exists() or looks_like_a_file:
        return path  # a file the user named: its own "no such file" says it best
    from tracer.paths import bundled_scenarios

    names = ", ".join(
        str(folder / p.stem) if str(folder) != "." else p.stem for p, folder in bundled_scenarios()
    )
    raise UserError(f"no such file or bundled scenario (bundled: {names})", path)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds")
    return value


def _record(args: argparse.Namespace) -> int:
    from tracer.interrupts import SessionInterrupted

    try:
        return _record_one(args)
    except SessionInterrupted as stop:
        # The session ended properly (terminal event written, workspace removed); say where
        # the trace is, then exit as the signal asks: 130, 143 or 129, never 0.
        output = getattr(args, "written", None)
        if output is not None and output.exists():
            print(printable(f"wrote {output} ({_ending(output)})"), file=sys.stderr)
        raise stop


def _record_one(args: argparse.Namespace) -> int:
    from tracer.record import record_prompt, record_scenario
    from tracer.scenario import load_scenario

    walls = {"sandbox": args.sandbox, "allow_network": args.allow_network}
    if args.all:
        return record_all(args.debug, args.out)
    if args.out is not None:
        raise UserError("--out DIR goes with --all; a single recording takes -o TRACE")
    if args.prompt is not None:
        from tracer.agent.model import DEFAULT_MODEL

        output = args.written = args.output or Path("session.trace.jsonl")
        record_prompt(
            args.prompt,
            output,
            model=args.model or DEFAULT_MODEL,
            debug=args.debug,
            max_turns=args.max_turns,
            allow=args.allow,
            deny=args.deny,
            workspace_from=args.workspace,
            i_know=args.i_know,
            timeout=args.timeout,
            **walls,
        )
    else:
        scenario = load_scenario(_scenario_path(args.scenario))
        output = args.written = args.output or Path(f"{scenario.name}.trace.jsonl")
        # Rules from the command line come first: a deny there beats the scenario's allow.
        scenario.allow = [*args.allow, *scenario.allow]
        scenario.deny = [*args.deny, *scenario.deny]
        record_scenario(
            scenario,
            output,
            debug=args.debug,
            max_turns=args.max_turns,
            timeout=args.timeout,
            **walls,
        )
    print(printable(f"wrote {output} ({_ending(output)})"), file=sys.stderr)
    return 0


def _ending(trace: Path) -> str:
    """How the recorded session ended, for the one line ``record`` prints."""
    from tracer.trace.reader import TraceReader

    reader = TraceReader(trace)
    last = reader[len(reader) - 1] if len(reader) else None
    if getattr(last, "kind", None) != "terminal":
        return "no ending recorded"
    error = f": {last.error}" if last.error else ""  # type: ignore[union-attr]
    return f"ended {last.reason} at turn {last.turn_count}{error}"  # type: ignore[union-attr]


def record_all(debug: bool = False, out: Path | None = None) -> int:
    """Re-record every bundled scenario (and fault scenario) into ``recordings/`` or ``out``.

    The default target is the clone's own ``recordings/``. An installed tracer has no clone: its
    recordings live in ``site-packages``, which belongs to the installer, so it asks for a folder.
    """
    from tracer.paths import bundled_scenarios
    from tracer.record import record_scenario
    from tracer.scenario import load_scenario

    if out is None:
        if CHECKOUT is None:
            raise UserError(
                "record --all: this tracer is installed, not run from a clone, so it will not "
                "write into its own package: name a folder with --out DIR"
            )
        out = CHECKOUT / "recordings"
    if out.exists() and not out.is_dir():
        raise UserError("--out must be a folder", out)
    scenarios = bundled_scenarios()
    if not scenarios:
        raise UserError("no bundled scenarios found (is chapters/ missing?)")
    for path, folder in scenarios:
        output = out / folder / f"{path.stem}.trace.jsonl"
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the folder ({exc.strerror})", output.parent) from None
        record_scenario(load_scenario(path), output, debug=debug)
        print(printable(f"wrote {output}"), file=sys.stderr)
    return 0


def _hooks(args: argparse.Namespace) -> int:
    from tracer.hooks import hook_lines
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    for line in hook_lines(reader):  # tracer-only lines are marked as such
        print(printable(line))
    _torn_note(reader)
    return 0


def _show(args: argparse.Namespace) -> int:
    from tracer.show import show_lines, token_line
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
        print(
            printable(f"{args.trace}: {len(problems)} problem(s) in {count} events"),
            file=sys.stderr,
        )
        return 1
    print(printable(f"{args.trace}: valid ({count} events)"))
    return 0


def _torn_note(reader: object) -> None:
    """What the reader noticed about the file's end: a torn last line, a missing ending."""
    for notice in (reader.torn_notice(), reader.incomplete_notice()):  # type: ignore[attr-defined]
        if notice:
            print(printable(f"note: {reader.path}: {notice}"), file=sys.stderr)  # type: ignore[attr-defined]


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
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if getattr(args, "trace", None) is not None:
        args.trace = resolve_trace(args.trace)
    try:
        with without_cycle_collection(args.command in BATCH_COMMANDS):
            return int(args.func(args) or 0)
    except UserError as exc:
        print(printable(f"tracer: {exc}"), file=sys.stderr)  # it may quote the input
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt as exc:
        name = getattr(exc, "name", "Ctrl-C")
        print(f"tracer: interrupted ({name})", file=sys.stderr)
        return int(getattr(exc, "exit_code", 130))


if __name__ == "__main__":
    raise SystemExit(main())
