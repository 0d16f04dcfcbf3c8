"""The type hints hold: mypy, with the settings in ``pyproject.toml``, finds nothing in tracer/.

The annotations are the code's documentation of what flows where (a ``Guide``, a ``StepIndex``,
an event of one kind); a checker that reads them is what keeps that documentation true as the
code changes. The modules on ``tracer import``'s path name ``typing`` only under
``TYPE_CHECKING`` (importing it costs every start-up), which mypy reads as true.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing_in_tracer(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # Every error line, so a failure says where without a second run.
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
