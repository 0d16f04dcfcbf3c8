"""The ``tracer`` command line.

Every sub-command imports what it needs only when it runs: ``tracer --help``, ``show``,
``hooks`` and ``validate`` never import ``anthropic`` (over a second on its own) or Textual.
Bad input of any kind ends as one line on stderr and exit code 2, never a traceback.

Sub-commands that live with their layer (replay, doctor, import, export) register themselves
through a small ``command`` module that imports nothing heavy at the top.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from tracer import __version__
from tracer.errors import UserError
from tracer.paths import RECORDINGS_DIR, SCENARIOS_DIR

#: Sub-commands registered by other layers: (module with ``register(subparsers)``).
PLUGIN_COMMANDS = (
    "tracer.replay.command",
    "tracer.doctor.command",
    "tracer.importers.command",
    "tracer.export.command",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    what.add_argument("--scenario", type=Path, metavar="FILE", help="a scenario YAML file")
    what.add_argument(
        "--prompt",
        metavar="TEXT",
        help="a prompt for the real model (needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)",
    )
    what.add_argument(
        "--all", action="store_true", help=f"re-record every scenario into {RECORDINGS_DIR.name}/"
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
        help="with --prompt: copy DIR into the throwaway workspace",
    )
    rec.set_defaults(func=_record)

    hooks = sub.add_parser("hooks", help="print the chapter's [DEBUG] lines from a trace")
    hooks.add_argument("trace", type=Path, metavar="TRACE")
    hooks.set_defaults(func=_hooks)

    show = sub.add_parser("show", help="list a trace step by step, one line per step")
    show.add_argument("trace", type=Path, metavar="TRACE")
    show.set_defaults(func=_show)

    val = sub.add_parser("validate", help="check a trace against the event schema")
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


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _record(args: argparse.Namespace) -> int:
    from tracer.record import record_prompt, record_scenario
    from tracer.scenario import load_scenario

    if args.all:
        return record_all(args.debug)
    if args.prompt is not None:
        from tracer.agent.model import DEFAULT_MODEL

        output = args.output or Path("session.trace.jsonl")
        record_prompt(
            args.prompt,
            output,
            model=args.model or DEFAULT_MODEL,
            debug=args.debug,
            max_turns=args.max_turns,
            allow=args.allow,
            deny=args.deny,
            workspace_from=args.workspace,
        )
    else:
        scenario = load_scenario(args.scenario)
        output = args.output or Path(f"{scenario.name}.trace.jsonl")
        # Rules from the command line come first: a deny there beats the scenario's allow.
        scenario.allow = [*args.allow, *scenario.allow]
        scenario.deny = [*args.deny, *scenario.deny]
        record_scenario(scenario, output, debug=args.debug, max_turns=args.max_turns)
    print(f"wrote {output} ({_ending(output)})", file=sys.stderr)
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


def record_all(debug: bool = False) -> int:
    """Re-record every bundled scenario (and fault scenario) into ``recordings/``."""
    from tracer.record import record_scenario
    from tracer.scenario import load_scenario

    count = 0
    for folder, target in (
        (SCENARIOS_DIR, RECORDINGS_DIR),
        (SCENARIOS_DIR.parent / "faults", RECORDINGS_DIR / "faults"),
    ):
        for path in sorted(folder.glob("*.yaml")):
            scenario = load_scenario(path)
            output = target / f"{path.stem}.trace.jsonl"
            record_scenario(scenario, output, debug=debug)
            print(f"wrote {output}", file=sys.stderr)
            count += 1
    return 0 if count else 2


def _hooks(args: argparse.Namespace) -> int:
    from tracer.hooks import hook_lines
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    for line in hook_lines(reader):
        print(line)
    _torn_note(reader)
    return 0


def _show(args: argparse.Namespace) -> int:
    from tracer.show import show_lines
    from tracer.trace.reader import TraceReader

    reader = TraceReader(args.trace)
    for line in show_lines(reader):
        print(line)
    _torn_note(reader)
    return 0


def _validate(args: argparse.Namespace) -> int:
    from tracer.trace.schema import validate_trace

    count, problems, notes = validate_trace(args.trace)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{args.trace}: {len(problems)} problem(s) in {count} events", file=sys.stderr)
        return 1
    print(f"{args.trace}: valid ({count} events)")
    return 0


def _torn_note(reader: object) -> None:
    """What the reader noticed about the file's end: a torn last line, a missing ending."""
    for notice in (reader.torn_notice(), reader.incomplete_notice()):  # type: ignore[attr-defined]
        if notice:
            print(f"note: {reader.path}: {notice}", file=sys.stderr)  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"tracer: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("tracer: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
