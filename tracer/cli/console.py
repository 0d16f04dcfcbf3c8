"""The ``tracer`` console script: the first frame of ours a start-up Ctrl-C can land in.

:func:`tracer.cli.main` turns a Ctrl-C into one line and exit code 130, but only once it runs.
Before that the interpreter is still importing the command line and what it stands on (argparse,
the sub-commands' small modules), and a Ctrl-C there would end in Python's own traceback. So the
script starts here, with nothing imported yet but this module, and imports the command line
inside the same ``try`` that catches the interrupt. (The interpreter's own start-up, before any
code of ours, stays Python's.)

Once the command has ended (or been interrupted) the process only reports and exits: from then
on the stop signals are ignored, so a second Ctrl-C (or SIGHUP after it) cannot become a
traceback out of the clean-up, nor change the exit code the first one set.

A batch command (``import``, ``show``, ``export``...) has written and closed all it writes by
the time it returns, so :func:`script` ends its process there and then, without Python's
finalization: that tears the interpreter down one object at a time (every module, class and
function, whatever the command kept) for a process about to vanish: 2 to 5% of the CPU of
``tracer import`` (``bench/import_speed.py``).
"""

from __future__ import annotations

import _signal
import gc
import os
import sys

_STOPS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)


def _deaf() -> None:
    """Ignore the stop signals from now on (a signal already ignored stays so)."""
    for signum in _STOPS:
        _signal.signal(signum, _signal.SIG_IGN)


def script() -> None:
    """The console script: :func:`run`, then the end of the process (see above)."""
    code = run()
    # Imported by run(), unless a Ctrl-C came before it was: then the ordinary exit.
    is_batch = getattr(sys.modules.get("tracer.cli.main"), "is_batch", None)
    if is_batch is not None and is_batch(sys.argv[1:]):
        end_now(code)
    raise SystemExit(code)


def end_now(code: int) -> None:
    """End the process with ``code`` once what it printed is out, skipping the interpreter's
    finalization. Output that cannot be flushed (a closed pipe) is left to the ordinary exit,
    which reports it as Python always has."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def run() -> int:
    """Import the command line and run it; a Ctrl-C at any point is one line, exit code 130."""
    try:
        # Importing the command line makes only what lives as long as the process (modules,
        # their classes and functions): the cycle collector, paused, does not walk it for
        # nothing. main() keeps it paused through a batch command, which the process ends
        # with, and gives it back to any other once its parser is built.
        gc.disable()
        from tracer.cli.main import main
        from tracer.interrupts import GRACE, Interrupts

        Interrupts.grace = GRACE  # a stop's clean-up here is bounded (see tracer.interrupts)
        return main(ends_process=True)
    except KeyboardInterrupt:
        _deaf()
        print("tracer: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    finally:
        _deaf()
        # The process ends with the command. Python's finalization would walk every object
        # still alive for cycles, three times over (the modules, their classes and functions,
        # whatever the command kept): a twentieth of the CPU of ``tracer import`` on a real
        # session (``bench/import_speed.py``). Frozen, they are left to reference counting and
        # to the end of the process. (Only here, where the process ends: never in main, which
        # tests call in-process.)
        gc.freeze()
