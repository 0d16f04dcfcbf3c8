"""``tracer record``: run a scripted scenario or a prompt, and write its trace.

A scenario runs offline (its answers are scripted, the SDK talks to the scripted transport); a
prompt goes to the real API. Either way the session ends the same way, and ``record`` says in one
line where the trace is and how the session ended, even when a signal stopped it
(:class:`~tracer.interrupts.SessionInterrupted`: the terminal event is written, the workspace is
gone, the exit code is the signal's). ``--all`` re-records every bundled scenario.

Registered by :mod:`tracer.cli.main`; the recorder and the SDK are imported only when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tracer.agent.totals import (
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TMP_BYTES,
    DEFAULT_WORKSPACE_BYTES,
    Totals,
    parse_size,
    shown,
)
from tracer.arguments import file_not_stdout, seconds, whole_number
from tracer.errors import UserError
from tracer.files.paths import CHECKOUT, resolve_scenario
from tracer.text.printable import printable


def register(sub: Any) -> None:
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
        type=file_not_stdout(Path),
        metavar="TRACE",
        help="where to write the trace (default: the scenario's name in the current directory)",
    )
    rec.add_argument(
        "--debug",
        action="store_true",
        help="print the chapter's [DEBUG] lines to stderr as they happen",
    )
    rec.add_argument("--max-turns", type=whole_number(1), metavar="N", help="override max_turns")
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
        help="let --workspace copy a folder that may hold secrets (~/.ssh, /etc, /var, /root, "
        ".netrc, .git-credentials, .pgpass, .npmrc, .pypirc, .docker/config.json…)",
    )
    rec.add_argument(
        "--timeout",
        type=seconds,
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
        help="let sandboxed commands use the network: IPv4/IPv6 to wherever the host reaches, "
        "loopback included, and name resolution; Unix sockets (abstract ones included), netlink "
        "and vsock stay refused",
    )
    for option, default, what in (
        ("--max-memory", DEFAULT_MEMORY_BYTES, "memory of all of a command's processes together, "
         "what they put in /tmp included (a memory cgroup, where one can be made)"),
        ("--max-tmp", DEFAULT_TMP_BYTES, "size of the sandbox's private /tmp"),
        ("--max-workspace", DEFAULT_WORKSPACE_BYTES, "what the workspace may hold on disk; past "
         "it after a command, the session ends"),
    ):  # fmt: skip
        rec.add_argument(
            option,
            type=_size,
            default=default,
            metavar="SIZE",
            help=f"{what} (default {shown(default)}; K, M or G)",
        )
    rec.add_argument(
        "--claude-code",
        action="store_true",
        help="record the real Claude Code instead of tracer's loop: a --scenario played to it "
        "offline, a --prompt through a loopback proxy to the real API, or --all",
    )
    rec.add_argument(
        "--claude",
        metavar="PATH",
        help="with --claude-code: the claude program (default: $TRACER_CLAUDE, else claude on "
        "PATH)",
    )
    rec.add_argument(
        "--strip-prose",
        action="store_true",
        help="with --claude-code: keep Claude Code's own text (system prompt, tool descriptions, "
        "system reminders) only as its size and sha256, as the bundled recordings do",
    )
    rec.set_defaults(func=_record)


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _scenario_path(arg: str) -> Path:
    """``--scenario``: a file or a bundled name; a name that is neither lists the bundled ones."""
    path = resolve_scenario(arg)
    looks_like_a_file = arg.endswith((".yaml", ".yml")) or "/" in arg.removeprefix("faults/")
    if path.exists() or looks_like_a_file:
        return path  # a file the user named: its own "no such file" says it best
    from tracer.files.paths import bundled_scenarios

    names = ", ".join(
        str(folder / p.stem) if str(folder) != "." else p.stem for p, folder in bundled_scenarios()
    )
    raise UserError(f"no such file or bundled scenario (bundled: {names})", path)


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
    from tracer.chapter.scenario import load_scenario
    from tracer.record.run import record_prompt, record_scenario

    if args.claude_code:
        from tracer.claude_code.cli import record_claude_code

        return record_claude_code(args, _scenario_path, _ending)
    if args.claude is not None or args.strip_prose:
        flag = "--claude PATH" if args.claude is not None else "--strip-prose"
        raise UserError(f"{flag} goes with --claude-code")
    totals = Totals(args.max_memory, args.max_tmp, args.max_workspace)
    walls = {"sandbox": args.sandbox, "allow_network": args.allow_network, "totals": totals}
    if args.all:
        if args.output is not None:  # never the clone's recordings/ when a folder was meant
            raise UserError(
                "-o TRACE names one recording; with --all, give the folder as --out DIR"
            )
        return record_all(args.debug, args.out)
    if args.out is not None:
        raise UserError("--out DIR goes with --all; a single recording takes -o TRACE")
    if args.workspace is not None and args.prompt is None:
        raise UserError(
            "--workspace DIR goes with --prompt; a scenario brings its own workspace "
            "(its workspace.files and workspace.setup)"
        )
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
        scenario.put_rules_first(args.allow, args.deny)
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
    from tracer.chapter.scenario import load_scenario
    from tracer.files.paths import bundled_scenarios
    from tracer.record.run import record_scenario

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
