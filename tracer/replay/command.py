"""``tracer replay``: the command-line entry of the replay app.

Registered by :mod:`tracer.cli.main` through ``register(subparsers)``; it imports nothing heavy at
the top, so ``tracer --help`` stays fast. :func:`tracer.replay.factory.make_app` (shared with the
tests) opens the trace and finds the starting step *before* Textual starts, so bad input (a
missing file, not a trace, a newer format version, a step that does not exist) ends as one line
on stderr and exit code 2, never a half-drawn screen. ``--doctor`` opens at the first finding of
``tracer doctor``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracer.errors import UserError
from tracer.trace.events import STAGES

if TYPE_CHECKING:
    from textual.app import App

    from tracer.replay.app import ReplayApp

DEFAULT_SIZE = (120, 40)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="step through a recorded trace, step by step",
        description="Replay a trace in a terminal app: mapping, wrapping, appending, resending, "
        "step by step, beside chapter 12. Without TRACE, the bundled main walk.",
    )
    parser.add_argument(
        "trace",
        nargs="?",
        type=Path,
        metavar="TRACE",
        help="the trace to replay: a file, a bundled recording's name "
        "(05-max-turns, faults/03-malformed-result), or a folder to list "
        "its traces (default: the bundled chapter-12 recording)",
    )
    parser.add_argument("--step", type=int, metavar="N", help="open at step N (1-based)")
    parser.add_argument("--turn", type=int, metavar="T", help="open at the first step of turn T")
    parser.add_argument(
        "--stage",
        choices=STAGES,
        metavar="STAGE",
        help="with --turn (or alone): the first step of this stage, e.g. mapping",
    )
    parser.add_argument(
        "--lang",
        choices=("zh", "en"),
        default=None,
        help="language (default from the locale: zh* means Chinese)",
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="keep reading a trace that `tracer record` is still writing",
    )
    parser.add_argument(
        "--doctor",
        action="store_true",
        help="open at the doctor's first finding (see `tracer doctor`), with the "
        "findings panel open",
    )
    parser.add_argument(
        "--beside",
        nargs="?",
        const=Path(""),  # beside_command.TWIN: the bundled fault's good twin
        type=Path,
        metavar="B",
        help="compare TRACE with the trace B, step beside step (aligned by turn and step of the "
        "journey, the differences summed up first); without B, a bundled fault is compared "
        "with the good run it breaks",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="OUT.svg",
        help="render the chosen step to an SVG file and exit (no terminal needed)",
    )
    parser.add_argument(
        "--size",
        type=parse_size,
        default=None,
        metavar="WxH",
        help="screen size for --screenshot (default 120x40)",
    )
    parser.set_defaults(func=run)


def parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)[xX×](\d+)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 120x40, not {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if width < 40 or height < 10:
        raise argparse.ArgumentTypeError("the screen must be at least 40x10")
    return width, height


def check_flags(args: argparse.Namespace) -> None:
    """Flags that contradict each other, or that would be silently ignored, are errors."""
    if args.step is not None and (args.turn is not None or args.stage is not None):
        raise UserError("--step picks the step itself: use it without --turn and --stage")
    if args.size is not None and args.screenshot is None:
        raise UserError("--size sets the size of a --screenshot: use it with --screenshot")
    if args.follow and args.screenshot is not None:
        raise UserError(
            "--follow keeps reading a live trace; a --screenshot is one frame: use one or the other"
        )


def build_app(args: argparse.Namespace, feed: Callable[[], object] | None = None) -> ReplayApp:
    """Open the trace, find the starting step and make the app (not yet running); ``feed`` is
    called before each ``--follow`` poll."""
    from tracer.replay.factory import ReplayOptions, make_app

    options = ReplayOptions(
        step=args.step,
        turn=args.turn,
        stage=args.stage,
        lang=args.lang,
        follow=args.follow,
        doctor=args.doctor,
        feed=feed,
    )
    return make_app(args.trace, options)


def run(args: argparse.Namespace) -> int:
    from tracer.replay.input_errors import raise_input_error
    from tracer.replay.stop_signals import raise_if_stopped, stoppable

    check_flags(args)
    if getattr(args, "beside", None) is not None:
        from tracer.replay.beside_command import run_beside

        return run_beside(args, write_screenshot, DEFAULT_SIZE)
    if args.follow and args.trace is not None and args.trace.is_file():
        from tracer.importers.claude_code.live import is_transcript

        if is_transcript(args.trace):
            return _run_live(args)
    if args.trace is not None and args.trace.is_dir() and not args.follow:
        from tracer.view.i18n import default_lang
        from tracer.view.opening import describe_folder

        print(describe_folder(args.trace, args.lang or default_lang()))
        print("tracer replay PATH  (opens one; O in the app lists these too)")
        return 0
    app = build_app(args)
    if args.screenshot is not None:
        app.replay.index.extend()  # a picture shows the whole count, not "indexing…"
        write_screenshot(app, args.screenshot, args.size or DEFAULT_SIZE)
        return 0
    if args.trace is not None:
        from tracer.view.sources import remember

        remember(app.replay.index.reader.path)  # the picker's "opened lately"
    with stoppable():
        app.run()
    raise_input_error(app)  # bad input met while drawing: one line, after the terminal is back
    raise_if_stopped()  # a stop signal: the terminal is back, exit 128 + its number
    return 0


def _run_live(args: argparse.Namespace) -> int:
    """``--follow`` on a Claude Code transcript: import it as it grows, into a trace the app
    follows (see :mod:`tracer.importers.claude_code.live`). The app's own poll drives the import."""
    import tempfile

    from tracer.importers.claude_code.live import LiveImport
    from tracer.replay.stop_signals import raise_if_stopped, stoppable

    with tempfile.TemporaryDirectory(prefix="tracer-live-") as tmp:
        live = LiveImport(args.trace, Path(tmp) / f"{args.trace.stem}.trace.jsonl")
        live.poll()
        args.trace = live.output
        app = build_app(args, feed=live.poll)
        try:
            with stoppable():
                app.run()
        finally:
            live.finish()
    if live.problem:
        import sys

        print(f"tracer: {live.problem}", file=sys.stderr)
    raise_if_stopped()
    return 0


def write_screenshot(app: App[Any], out: Path, size: tuple[int, int]) -> Path:
    """Render the app's first frame headless and save it as SVG."""
    import asyncio

    async def shoot() -> str:
        try:
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                raise_input_error(app)  # the app has closed: waiting on it would time out
                await app.workers.wait_for_complete()  # the doctor, on a bigger trace
                await pilot.pause()
                raise_input_error(app)
                return app.export_screenshot(title=app.TITLE)
        except Exception:
            raise_input_error(app)  # the app stopped over bad input: that is the error to show
            raise

    from tracer.replay.input_errors import raise_input_error

    svg = asyncio.run(shoot())
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(svg, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the screenshot ({exc.strerror})", out) from None
    print(f"wrote {out}")
    return out
