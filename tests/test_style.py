"""The code stays ruff clean (the house style is part of the build)."""

from __future__ import annotations

import subprocess
import sys

from tracer.files.paths import ROOT


def test_ruff_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "tracer", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_formatted() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "tracer", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
