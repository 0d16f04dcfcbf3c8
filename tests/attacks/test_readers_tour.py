"""Attacks on the tour's progress file: a FIFO, ``/dev/zero``, 3,000 levels of nesting.

The tour reads ``tour.json`` from its state folder at start. It is tracer's own file, so a damaged
one means a fresh start, not an error; but it is read through :mod:`tracer.files.untrusted` like
every input, so nothing put there can stall the tour before it draws (a FIFO with no writer), fill
its memory (``/dev/zero``) or overflow ``json``'s recursion. The first two run in a child process
under a timeout and an address-space limit, so the old behaviour fails instead of hanging.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from tracer.files.paths import ROOT


def _load_progress_in_a_child(state: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from tracer.tour.stops import load_progress\n"
        "print(load_progress(Path(sys.argv[1])))\n"
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))

    return subprocess.run(
        [sys.executable, "-c", code, str(state)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        preexec_fn=limit,
    )


def test_a_fifo_as_the_progress_file_starts_the_tour_afresh(tmp_path: Path) -> None:
    state = tmp_path / "tour.json"
    os.mkfifo(state)  # no writer: a plain open() would wait for one forever
    proc = _load_progress_in_a_child(state)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Progress(stop=None, answers={}, lang=None)"


def test_dev_zero_as_the_progress_file_starts_the_tour_afresh(tmp_path: Path) -> None:
    state = tmp_path / "tour.json"
    state.symlink_to("/dev/zero")
    proc = _load_progress_in_a_child(state)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Progress(stop=None, answers={}, lang=None)"


def test_deep_nesting_in_the_progress_file_starts_the_tour_afresh(tmp_path: Path) -> None:
    from tracer.tour.stops import Progress, load_progress

    state = tmp_path / "tour.json"
    state.write_text('{"version": 1, "answers": ' + "[" * 3000 + "]" * 3000 + "}")
    assert load_progress(state) == Progress()
    state.write_text('{"version": 1, "stop": "x", "lang": "zh", "answers": {}}')
    assert load_progress(state) == Progress("x", {}, "zh")  # and a sound file still reads
