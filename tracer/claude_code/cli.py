"""The ``--claude-code`` side of ``tracer record``: which mode, which files, one line at the end.

Registered as a flag of ``record`` (:mod:`tracer.cli_record`), which hands over here when it is
given; the options that only tracer's own loop understands (``--debug``, ``--max-turns``,
``--workspace``…) are refused with one line rather than silently ignored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tracer.errors import UserError
from tracer.printable import printable

#: Options of ``record`` that steer tracer's own loop and mean nothing to Claude Code.
_LOOP_ONLY = ("debug", "max_turns", "workspace", "i_know", "allow_network")


def record_claude_code(
    args: argparse.Namespace,
    scenario_path: Callable[[str], Path],
    ending: Callable[[Path], str],
) -> int:
    """Run the mode ``args`` asks for; ``scenario_path`` and ``ending`` are ``record``'s own
    (a name or file to a scenario path; how a trace ended, for the last line)."""
    from tracer.claude_code.record import record_scenario_claude_code
    from tracer.scenario import load_scenario

    for name in _LOOP_ONLY:
        if getattr(args, name, None):
            flag = "--" + name.replace("_", "-")
            raise UserError(f"{flag} steers tracer's own loop; it does not go with --claude-code")
    if args.prompt is not None or args.all:
        raise UserError("--claude-code records a --scenario")
    if args.out is not None:
        raise UserError("--out DIR goes with --all; a single recording takes -o TRACE")
    scenario = load_scenario(scenario_path(args.scenario))
    output = args.output or Path(f"{scenario.name}.claude-code.trace.jsonl")
    scenario.allow = [*args.allow, *scenario.allow]
    scenario.deny = [*args.deny, *scenario.deny]
    record_scenario_claude_code(
        scenario, output, claude=args.claude, sandbox=args.sandbox, timeout=args.timeout
    )
    print(printable(f"wrote {output} ({ending(output)})"), file=sys.stderr)
    return 0
