"""The ``tracer`` console script: the first frame of ours a start-up Ctrl-C can land in.

:func:`tracer.cli.main` turns a Ctrl-C into one line and exit code 130, but only once it runs.
Before that the interpreter is still importing the command line and what it stands on (argparse,
the sub-commands' small modules), and a Ctrl-C there would end in Python's own traceback. So the
script starts here, with nothing imported yet but this module, and imports the command line
inside the same ``try`` that catches the interrupt. (The interpreter's own start-up, before any
code of ours, stays Python's.)
"""

from __future__ import annotations

import sys


def run() -> int:
    """Import the command line and run it; a Ctrl-C at any point is one line, exit code 130."""
    try:
        from tracer.cli.main import main

        return main()
    except KeyboardInterrupt:
        print("tracer: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
