"""tests/busy.py runs a command beside spinning loops, passes its exit code on, and leaves no
loop behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BUSY = Path(__file__).with_name("busy.py")


def _spinning(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_the_command_runs_beside_the_loops_and_its_exit_code_comes_back(tmp_path: Path) -> None:
    # A limit no other run uses, so the loops can be found by it while the command runs.
    limit = f"{4000 + os.getpid() % 1000}.5"
    seen = tmp_path / "seen"
    probe = (
        "import os, sys\n"
        # Spelled in two pieces, so that this probe's own command line does not hold it.
        f"marker = ('end = time.monotonic() ' + '+ {limit}').encode()\n"
        "n = 0\n"
        "for pid in os.listdir('/proc'):\n"
        "    try:\n"
        "        n += marker in open(f'/proc/{pid}/cmdline', 'rb').read()\n"
        "    except OSError:\n"
        "        pass\n"
        f"open({str(seen)!r}, 'w').write(str(n))\n"
        "sys.exit(3)\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(BUSY),
            "--loops",
            "2",
            "--limit",
            limit,
            "--",
            sys.executable,
            "-c",
            probe,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 3, proc.stderr
    assert seen.read_text() == "2", "two loops were spinning while the command ran"
    assert "busy: 2 spinning loops; load before:" in proc.stderr
    assert _spinning(f"end = time.monotonic() + {limit}") == [], "no loop outlives the command"


def test_no_command_is_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, str(BUSY), "--"], capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 2 and "give the command to run" in proc.stderr
