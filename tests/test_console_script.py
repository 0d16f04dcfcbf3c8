"""The ``tracer`` console script ends a batch command's process without Python's finalization,
and nothing the command printed or wrote is lost on the way (:mod:`tracer.cli.console`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracer.cli.main import main
from tracer.files.paths import MAIN_RECORDING, ROOT

SOURCE = ROOT / "tests" / "data" / "claude-code" / "v2.0-output-limit-then-tools.jsonl"

#: The console script as pip writes it, with an exit handler that says when Python's ordinary
#: finalization ran (it runs the handlers first).
SCRIPT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('finalized', file=sys.stderr))\n"
    "from tracer.cli.console import script\n"
    "sys.exit(script())\n"
)


def _script(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # Buffered as a user's terminal or pipe is: PYTHONUNBUFFERED would hide a lost flush.
    env = {
        k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "PYTHONUNBUFFERED")
    }
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def test_a_batch_command_ends_at_once_with_all_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["show", str(MAIN_RECORDING)],
        ["export", "--format", "otlp-json", str(MAIN_RECORDING)],
    ):
        proc = _script(*argv, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "finalized" not in proc.stderr
        # Every line reached the pipe: the same text main prints in-process.
        assert main(argv) == 0
        assert proc.stdout == capsys.readouterr().out
    assert len(proc.stdout) > 8192  # more than stdout's buffer holds: a lost flush would show


def test_an_import_ends_at_once_with_its_trace_whole(tmp_path: Path) -> None:
    proc = _script("import", "claude-code", str(SOURCE), "-o", "s.trace.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "finalized" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == "wrote s.trace.jsonl"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.trace.jsonl"]  # no temporary left
    checked = _script("validate", "s.trace.jsonl", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_failing_batch_command_keeps_its_message_and_exit_code(tmp_path: Path) -> None:
    proc = _script("show", str(tmp_path / "missing.jsonl"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "finalized" not in proc.stderr
    assert proc.stderr.startswith("tracer: ") and "missing.jsonl" in proc.stderr


@pytest.mark.parametrize("argv", [["--version"], ["replay", "--help"], ["no-such-command"]])
def test_anything_else_takes_the_ordinary_exit(tmp_path: Path, argv: list[str]) -> None:
    # Help, the version and a usage error are not batch commands; nor are the replay and the
    # recorder, whose clean-up handlers (a sandbox's cgroup) must run.
    proc = _script(*argv, cwd=tmp_path)
    assert proc.stderr.splitlines()[-1] == "finalized"
    assert proc.returncode == (2 if argv == ["no-such-command"] else 0)
