"""``tracer import``: the command-line face of the importers.

Kept light on purpose (``tracer --help`` imports every ``command`` module): the importers
themselves are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from tracer.arguments import file_not_stdout
from tracer.errors import UserError
from tracer.files.pathnames import pathname, stem
from tracer.text.printable import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from tracer.importers.claude_code.folder import Row


#: The formats, each a parser of its own: a command line that names one gets only its parser
#: built (:func:`tracer.cli.main.build_parser`).
SUBCOMMANDS = ("claude-code", "api-log")


def register(subparsers: Any, only: str = "") -> None:
    """``tracer import`` and its formats' parsers (``only``: that format's alone)."""
    parser = subparsers.add_parser(
        "import",
        help="turn a Claude Code transcript or an API log into a trace",
        description="Import someone else's log of an agent loop as a tracer trace, so that "
        "show, hooks, validate, the doctor and the replay can read it.",
    )
    formats = parser.add_subparsers(dest="format", metavar="FORMAT", required=True)

    if only in ("", "claude-code"):
        _register_claude_code(formats)
    if only in ("", "api-log"):
        _register_api_log(formats)


def _register_claude_code(formats: Any) -> None:
    cc = formats.add_parser(
        "claude-code",
        help="a Claude Code session (~/.claude/projects/<project>/<id>.jsonl)",
        description="Rebuild each request of a Claude Code session from its transcript.",
    )
    # The claude-code import names its files as plain strings, spelled as str(Path(...)) would
    # spell them (tracer.files.pathnames): pathlib costs a start as much as an eighth of the
    # whole import's parsing. Its folder, --follow and --list modes take a Path where they run.
    cc.add_argument(
        "session",
        type=pathname,
        nargs="?",
        metavar="SESSION.jsonl|DIR",
        help="a session, or a project folder (~/.claude/projects/<project>/): every session in it",
    )
    cc.add_argument(
        "-o",
        "--output",
        type=file_not_stdout(pathname),
        metavar="TRACE",
        help="where to write the trace (default: <session>.trace.jsonl here); for a folder, "
        "the folder to write one trace per session into (default: <project>.traces here)",
    )
    cc.add_argument(
        "--list",
        action="store_true",
        help="list the sessions under ~/.claude/projects (or $CLAUDE_CONFIG_DIR), newest first",
    )
    cc.add_argument(
        "--follow",
        action="store_true",
        help="keep importing as Claude Code writes the session, until Ctrl-C",
    )
    cc.add_argument(
        "--idle-exit",
        type=float,
        metavar="SECONDS",
        help="with --follow: stop after SECONDS without a new line",
    )
    cc.set_defaults(func=_claude_code)


def _register_api_log(formats: Any) -> None:
    api = formats.add_parser(
        "api-log",
        help="a wire log of /v1/messages pairs (claude-trace's .jsonl)",
        description="Import every main-loop request of a request/response log; side calls to "
        "other models and quota probes are counted and kept apart.",
    )
    api.add_argument("log", type=_path, metavar="LOG.jsonl")
    api.add_argument(
        "-o",
        "--output",
        type=file_not_stdout(_path),
        metavar="TRACE",
        help="where to write the trace (default: <log>.trace.jsonl here)",
    )
    api.add_argument(
        "--list",
        action="store_true",
        help="list the conversations (threads) the log holds, and stop",
    )
    api.add_argument(
        "--thread",
        type=int,
        metavar="N",
        help="import conversation N of the log alone (default: each conversation into a "
        "trace of its own, the busiest into TRACE, the others beside it as "
        "TRACE.thread-N.trace.jsonl)",
    )
    api.set_defaults(func=_api_log)


def _path(text: str) -> Path:
    """An argument as a ``Path``, pathlib imported only by the commands that take one."""
    from pathlib import Path

    return Path(text)


def _default_output(source: str | os.PathLike[str]) -> str:
    """``<source's stem>.trace.jsonl``, here (as ``str(Path(...))`` spells it)."""
    return pathname(f"{stem(source)}.trace.jsonl")


def _report(lines: list[str], output: str | os.PathLike[str]) -> None:
    for line in lines:  # notes quote the input
        print(printable(line), file=sys.stderr)
    print(printable(f"wrote {output}"), file=sys.stderr)


def _claude_code(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if args.session is None:
        raise UserError("give a SESSION.jsonl to import, or --list to see the sessions found")
    if os.path.isdir(args.session) and not args.follow:
        from pathlib import Path

        session = Path(args.session)
        return _folder(session, Path(args.output or f"{session.name}.traces"))
    output = args.output or _default_output(args.session)
    if args.follow:
        from pathlib import Path

        return _follow(Path(args.session), Path(output), args.idle_exit)
    from tracer.importers.claude_code.importer import import_claude_code

    report = import_claude_code(args.session, output)
    _report(report.summary(), output)
    return 1 if report.unreadable else 0


def _folder(folder: Path, output: Path) -> int:
    """Every session of a project folder; exit 2 when any could not be imported."""
    from tracer.importers.claude_code.folder import import_folder, progress_bar

    tty = sys.stderr.isatty()

    def show(done: int, total: int, session: Path) -> None:
        if tty:  # a bar redrawn in place means nothing in a log file
            end = "\n" if done == total else ""
            bar = "\r" + printable(progress_bar(done, total, session).removeprefix("\r"))
            print(bar, end=end, file=sys.stderr, flush=True)

    rows: list[Row] = []
    try:
        import_folder(folder, output, show, rows)
    except KeyboardInterrupt:
        # Each trace is written whole or not at all (atomic): say which are there, then stop.
        if tty:
            print(file=sys.stderr)  # end the bar's line
        _summary(rows, output)
        raise
    _summary(rows, output)
    return 2 if any(r.error for r in rows) else 0


def _summary(rows: list[Row], output: Path) -> None:
    from tracer.importers.claude_code.folder import summary_table

    if rows:
        for line in summary_table(rows):  # session names and their errors
            print(printable(line), file=sys.stderr)
    print(
        printable(f"wrote {sum(r.error is None for r in rows)} trace(s) into {output}"),
        file=sys.stderr,
    )


def _follow(session: Path, output: Path, idle_exit: float | None) -> int:
    from tracer.importers.claude_code.live import follow_import, is_transcript

    if not session.exists():
        raise UserError("no such file (yet): start Claude Code first", session)
    if session.is_file() and not is_transcript(session):
        raise UserError(
            "this is already a tracer trace; follow it with tracer replay --follow", session, 1
        )
    print(printable(f"following {session} into {output} (Ctrl-C to stop)"), file=sys.stderr)
    live = follow_import(session, output, idle_exit=idle_exit)
    if live.problem:
        print(printable(f"tracer: {live.problem}"), file=sys.stderr)
    print(printable(f"wrote {output} ({len(live.events)} events)"), file=sys.stderr)
    return 0


def _api_log(args: argparse.Namespace) -> int:
    from tracer.importers.api_log.importer import import_api_log, import_every_thread
    from tracer.importers.api_log.threads import list_threads

    if args.list:
        for line in list_threads(args.log):
            print(printable(line))
        return 0
    output = args.output or _default_output(args.log)
    if args.thread is not None:
        report = import_api_log(args.log, output, thread=args.thread)
        _report(report.summary(), output)
        return 1 if report.unreadable else 0
    done = import_every_thread(args.log, output)  # one trace per conversation of the log
    for out, report in done:
        _report(report.summary(), out)
    return 1 if any(report.unreadable for _, report in done) else 0


def _list() -> int:
    from tracer.importers.claude_code.sessions import find_sessions, first_prompt, project_roots

    roots = project_roots()
    sessions = find_sessions(roots)
    if not sessions:
        where = " or ".join(str(r) for r in roots)
        print(printable(f"no Claude Code sessions under {where}"), file=sys.stderr)
        return 0
    for session in sessions:
        root = next((r for r in roots if session.path.is_relative_to(r)), session.path.parent)
        print(printable(session.line(root, first_prompt(session.path))))  # a prompt
    if any(s.live() for s in sessions):
        print(
            "live: still being written; watch one with tracer replay --follow SESSION.jsonl",
            file=sys.stderr,
        )
    return 0
