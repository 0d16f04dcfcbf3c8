"""``tracer replay A --beside [B]``: open two traces, align them, and build the comparison app.

:func:`make_beside_app` is shared by the command line and the tests. Everything that can fail on
bad input fails here, before Textual draws: A or B missing, not a trace, a broken line (both
traces are read whole, since the alignment needs every step), or ``--beside`` without B on a
trace that is not a bundled fault with a good twin (:mod:`tracer.compare.twins`). The command
line turns each into one line on stderr and exit code 2.

Each run's doctor findings (:func:`tracer.view.diagnose.diagnose`) are placed on their rows,
so the summary lists them and ``d`` goes there. A small trace is checked before the first frame;
a bigger one (more than :data:`~tracer.view.diagnose.NOW_LIMIT` events), whose check costs
more than the alignment, in the background once the screen is up, as the replay does.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tracer.errors import UserError
from tracer.view.diagnose import NOW_LIMIT

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tracer.doctor.finding import Finding
    from tracer.replay.beside_app import BesideApp
    from tracer.view.steps import StepIndex

#: ``--beside`` given without a trace: the bundled fault's good twin.
TWIN = Path("")
#: Flags of ``tracer replay`` that place or follow one trace: they mean nothing beside another.
SINGLE_FLAGS = ("step", "turn", "stage", "follow", "doctor")


def _open(path: Path) -> StepIndex:
    """The whole step index of the trace at ``path`` (bad input: a UserError naming it)."""
    from tracer.trace.reader import TraceReader
    from tracer.view.steps import StepIndex

    if not path.exists():
        raise UserError("no such file", path)
    if path.is_dir():
        raise UserError("is a directory, not a trace", path)
    return StepIndex(TraceReader(path))


def make_beside_app(
    a: Path,
    b: Path | None = None,
    *,
    lang: str | None = None,
    findings: Sequence[Finding] | None = None,
    findings_b: Sequence[Finding] | None = None,
) -> BesideApp:
    """The comparison of ``a`` with ``b`` (None: a's good twin), ready to run.

    ``a`` and ``b`` may be bundled recordings' short names. ``findings`` and ``findings_b``: the
    doctor's findings in A and B, if already known (the tests give their own); by default the
    doctor checks each.
    """
    from tracer.compare.align import align
    from tracer.compare.beside import Comparison
    from tracer.compare.keys import step_keys
    from tracer.compare.twins import no_twin, twin_of
    from tracer.files.paths import resolve_trace, short_name
    from tracer.replay.beside_app import BesideApp
    from tracer.text.printable import printable
    from tracer.view.diagnose import diagnose
    from tracer.view.i18n import default_lang

    path_a = resolve_trace(a)
    if b is None:
        twin = twin_of(path_a)
        if twin is None:
            raise UserError(no_twin(a))
        path_b = twin
    else:
        path_b = resolve_trace(b)
    indexes = (_open(path_a), _open(path_b))
    rows = align(step_keys(indexes[0]), step_keys(indexes[1]))
    if not rows:
        raise UserError(f"neither {path_a} nor {path_b} has a step to compare")
    names = (printable(short_name(path_a)), printable(short_name(path_b)))
    comparison = Comparison(rows, names)
    for side, known in enumerate((findings, findings_b)):
        if known is not None:
            comparison.place(side, known)
        elif len(indexes[side].reader) <= NOW_LIMIT:  # a few milliseconds: before the first frame
            comparison.place(side, diagnose(indexes[side].reader).findings)
        else:  # the screen checks it in the background (BesideScreen.on_mount)
            comparison.pending.add(side)
    return BesideApp(comparison, indexes, lang or default_lang())


def run_beside(
    args: argparse.Namespace, screenshot: Callable[..., object], size: tuple[int, int]
) -> int:
    """``tracer replay A --beside [B]``. ``--screenshot`` draws the summary to an SVG file with
    ``screenshot`` (the replay command's, handed down: this module never imports it back),
    ``size`` unless ``--size``."""
    from tracer.replay.input_errors import raise_input_error
    from tracer.replay.stop_signals import raise_if_stopped, stoppable

    used = [f"--{name}" for name in SINGLE_FLAGS if getattr(args, name, None) not in (None, False)]
    if used:
        raise UserError(f"{used[0]} goes with one trace, not with --beside")
    if args.trace is None:
        raise UserError("--beside compares TRACE with B: give TRACE")
    app = make_beside_app(args.trace, None if args.beside == TWIN else args.beside, lang=args.lang)
    if args.screenshot is not None:
        screenshot(app, args.screenshot, args.size or size)
        return 0
    with stoppable():
        app.run()
    raise_input_error(app)
    raise_if_stopped()
    return 0
