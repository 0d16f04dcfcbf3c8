"""Building the replay app: one function shared by ``tracer replay`` and the tests.

:func:`make_app` opens the trace, finds the step to start at and hands both to
:class:`~tracer.replay.app.ReplayApp`, which is not yet running. Everything that can fail on bad
input (a missing file, not a trace, a newer format version, a step that does not exist, a
broken first event) fails here, as a :class:`~tracer.errors.UserError`, before Textual draws
anything: the command line turns it into one line on stderr and exit code 2.

This module is imported by the command line when ``tracer replay`` runs; it imports Textual
(through the app) only inside :func:`make_app`, so importing it stays cheap.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tracer.errors import UserError
from tracer.replay.options import LOAD_GUIDE, LoadGuide, ReplayOptions

if TYPE_CHECKING:
    from tracer.chapter.guide_records import Guide
    from tracer.replay.app import ReplayApp

__all__ = ["LOAD_GUIDE", "ReplayOptions", "make_app", "make_tour_app"]


def make_app(trace: Path | str | None = None, options: ReplayOptions | None = None) -> ReplayApp:
    """The replay app for ``trace`` (default: the bundled main walk), ready to run.

    ``trace`` may also be a bundled recording's short name (``05-max-turns``). ``options``
    (:class:`~tracer.replay.options.ReplayOptions`, default: ``tracer replay``'s) says where to
    start and what the screen starts from. With ``follow`` the app opens at the last step written
    so far (unless a position is asked for) and a file that does not exist yet is waited for, as
    ``tail -F`` does. ``step`` is 1-based; ``turn``/``stage`` pick the first step of a turn
    and/or stage; ``doctor`` starts at the doctor's first finding (unless a position was given).
    The app gets the same options, with ``lang`` filled in from the locale when it was None.
    """
    from tracer.files.paths import MAIN_RECORDING, resolve_trace
    from tracer.replay.app import ReplayApp
    from tracer.trace.reader import TraceReader
    from tracer.view.cursor import locate
    from tracer.view.i18n import default_lang
    from tracer.view.opening import WaitingReader
    from tracer.view.state import ReplayState
    from tracer.view.steps import READ_AHEAD, StepIndex

    options = options or ReplayOptions()
    options = replace(options, lang=options.lang or default_lang())
    step, turn, stage, follow = options.step, options.turn, options.stage, options.follow
    path = resolve_trace(trace) if trace is not None else MAIN_RECORDING
    if follow and not path.exists():
        # Like tail -F: wait for the recorder to create it (the app says so, and opens it).
        if options.positioned:
            raise UserError("--follow on a file not written yet cannot start at a step", path)
        waiting = WaitingReader(path)
        # An empty stand-in for the TraceReader (no event to read) until the file appears.
        index = StepIndex(waiting, eager=False)  # type: ignore[arg-type]
        return ReplayApp(ReplayState(index), options)
    # Checked here too, so the reader is only built for a file that exists (a reader whose
    # constructor fails prints a stray warning when it is collected).
    if not path.exists():
        raise UserError("no such file", path)
    if path.is_dir():
        raise UserError("is a directory, not a trace", path)
    # The first lines now, the rest after the first frame (the reader finds them, then the
    # index takes them): a 50 MB trace opens about as fast as a small one. Followed, the
    # whole file: following keeps to its end.
    reader = TraceReader(path, first=None if follow else READ_AHEAD)
    index = StepIndex(reader, eager=False)
    if follow and not options.positioned and len(index):
        # Like tail -f: start at the end of what is written so far (a file written all at once
        # shows its last step), and stay there as it grows.
        index.extend()
        index.event(len(index) - 1)
        start = len(index) - 1
    elif len(index) or not follow:
        start = locate(index, step=step, turn=turn, stage=stage)
        # Decode the first step now: a broken line should be a clean error, not a crash later.
        index.event(start)
    else:
        start = 0  # following a trace whose first step is not written yet
    return ReplayApp(ReplayState(index, start), options)


def make_tour_app(
    *,
    lang: str | None = None,
    restart: bool = False,
    state: Path | None = None,
    guide: Guide | Literal[LoadGuide.LOAD] = LOAD_GUIDE,
) -> ReplayApp:
    """The app for ``tracer tour``: the chapter in the book's order, resumed where it was left.

    ``state``: the progress file (default ``tour.json`` in :func:`tracer.files.paths.state_dir`).
    A missing or broken guide is bad input here: the tour is made of it.
    """
    from tracer.chapter.guide import load_guide
    from tracer.files.paths import state_dir
    from tracer.tour.stops import PROGRESS_FILE, Tour, load_progress, plan_stops, save_progress
    from tracer.view.i18n import default_lang
    from tracer.view.sections import bundled_contents

    if guide is LOAD_GUIDE:
        guide = load_guide()
    path = state if state is not None else state_dir() / PROGRESS_FILE
    stops = plan_stops(guide, bundled_contents(guide))
    if not stops:
        raise UserError("the guide gives the tour nowhere to go", getattr(guide, "path", None))
    progress = load_progress(path)
    lang = lang or progress.lang or default_lang()
    tour = Tour(stops, progress, path)
    if restart:
        tour.restart()
    tour.progress.lang = lang
    tour.progress.stop = tour.current.id
    try:  # where the progress goes is the user's choice ($TRACER_STATE_DIR): check it now
        save_progress(tour.progress, path)
    except OSError as exc:
        raise UserError(f"cannot keep the tour's progress here ({exc.strerror})", path) from None
    first = tour.current
    options = ReplayOptions(step=first.step + 1, lang=lang, guide=guide, tour=tour)
    return make_app(first.recording, options)
