"""The ``--claude-code`` side of ``tracer record``: which mode, which files, one line at the end.

Registered as a flag of ``record`` (:mod:`tracer.cli.record`), which hands over here when it is
given; the options that only tracer's own loop understands (``--debug``, ``--max-turns``,
``--workspace``…) are refused with one line rather than silently ignored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tracer.errors import UserError
from tracer.text.printable import printable

if TYPE_CHECKING:
    from tracer.chapter.scenario import Scenario

#: Options of ``record`` that steer tracer's own loop and mean nothing to Claude Code.
_LOOP_ONLY = ("debug", "max_turns", "allow_network")


def record_claude_code(
    args: argparse.Namespace,
    scenario_path: Callable[[str], Path],
    ending: Callable[[Path], str],
) -> int:
    """Run the mode ``args`` asks for; ``scenario_path`` and ``ending`` are ``record``'s own
    (a name or file to a scenario path; how a trace ended, for the last line)."""
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_prompt_claude_code

    for name in _LOOP_ONLY:
        if getattr(args, name, None):
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} steers tracer's own loop; it does not go with --claude-code")
    if args.all:
        if args.output is not None:
            raise UserError(
                "-o TRACE names one recording; with --all, give the folder as --out DIR"
            )
        return record_all_claude_code(args)
    if args.out is not None:
        raise UserError("--out DIR goes with --all; a single recording takes -o TRACE")
    if (args.workspace or args.i_know) and args.prompt is None:
        raise UserError("--workspace goes with --prompt; a scenario brings its own workspace")
    if args.prompt is not None:
        output = args.written = args.output or Path("session.claude-code.trace.jsonl")
        record_prompt_claude_code(
            args.prompt,
            output,
            claude=args.claude,
            model=args.model,
            allow=args.allow,
            deny=args.deny,
            workspace_from=args.workspace,
            i_know=args.i_know,
            sandbox=args.sandbox,
            timeout=args.timeout,
            strip_prose=args.strip_prose,
        )
    else:
        scenario = load_scenario(scenario_path(args.scenario))
        output = args.written = args.output or Path(f"{scenario.name}.claude-code.trace.jsonl")
        _play(scenario, output, args)
    print(printable(f"wrote {output} ({ending(output)})"), file=sys.stderr)
    return 0


def record_all_claude_code(args: argparse.Namespace) -> int:
    """Every bundled scenario (and fault scenario) played to the real Claude Code, into
    ``--out DIR`` (required: what a user records keeps Claude Code's prose, so it never goes
    into the clone's own ``recordings/`` by default)."""
    from tracer.chapter.scenario import load_scenario
    from tracer.files.paths import bundled_scenarios

    if args.out is None:
        raise UserError("record --all --claude-code writes into a folder of yours: give --out DIR")
    if args.out.exists() and not args.out.is_dir():
        raise UserError("--out must be a folder", args.out)
    scenarios = bundled_scenarios()
    if not scenarios:
        raise UserError("no bundled scenarios found (is chapters/ missing?)")
    for path, folder in scenarios:
        output = args.written = args.out / folder / f"{path.stem}.trace.jsonl"
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the folder ({exc.strerror})", output.parent) from None
        _play(load_scenario(path), output, args)
        print(printable(f"wrote {output}"), file=sys.stderr)
    return 0


def _play(scenario: Scenario, output: Path, args: argparse.Namespace) -> None:
    """One scenario played to the real Claude Code, with the command line's rules first."""
    from tracer.claude_code.record import record_scenario_claude_code

    scenario.put_rules_first(args.allow, args.deny)
    record_scenario_claude_code(
        scenario,
        output,
        claude=args.claude,
        sandbox=args.sandbox,
        timeout=args.timeout,
        strip_prose=args.strip_prose,
    )
