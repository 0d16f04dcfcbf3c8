"""``tracer tour``: walk chapter 12 in the book's order, predicting at each checkpoint.

Registered by :mod:`tracer.cli.main` through ``register(subparsers)``; nothing heavy is imported
until the command runs. :func:`tracer.replay.factory.make_tour_app` (shared with the tests) plans
the stops and reads the saved progress before Textual starts, so a broken guide ends as one line on
stderr and exit code 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from tracer.files.paths import STATE_ENV
from tracer.tour.words import say


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tour",
        help="a guided tour of chapter 12, with its checkpoints as questions",
        description="Walk chapter 12 in the book's order: each section opens the recording and "
        "step that show it, and at each of the checkpoints you predict what the next "
        "step will show before you see it. Progress is kept (in $"
        + STATE_ENV
        + ", $XDG_STATE_HOME/tracer or ~/.local/state/tracer), so the tour resumes "
        "where you left it. Keys: "
        + say("tour_keys", "en")
        + " · "
        + say("tour_as_usual", "en")
        + " · "
        + say("tour_more_keys", "en")
        + ". On a checkpoint, choose an answer (1-9, or the arrows) before Enter; w skips it.",
    )
    parser.add_argument(
        "--lang",
        choices=("zh", "en"),
        default=None,
        help="language (default: the tour's last one, else the locale)",
    )
    parser.add_argument(
        "--restart",
        action="store_true",
        help="forget the saved progress and start from the first stop",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tracer.replay.factory import make_tour_app
    from tracer.replay.stop_signals import raise_if_stopped, stoppable

    with stoppable():
        make_tour_app(lang=args.lang, restart=args.restart).run()
    raise_if_stopped()  # a stop signal: the terminal is back, exit 128 + its number
    return 0
