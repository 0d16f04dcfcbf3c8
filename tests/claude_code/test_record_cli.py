"""``tracer record --claude-code`` before Claude Code runs: finding the program, its version, and
the options that do not go with it (no ``claude`` needed: these are the refusals)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tracer.chapter.scenario import load_scenario
from tracer.claude_code.launch import INSTALL, claude_version, version_warning
from tracer.claude_code.record import scenario_rules
from tracer.files.paths import ROOT

Run = Callable[..., subprocess.CompletedProcess[str]]
SCENARIO = ROOT / "chapters" / "ch12" / "scenarios" / "12-empty-output.yaml"


def _fake(tmp_path: Path, version: str) -> Path:
    """A program that says it is Claude Code ``version`` and does nothing else."""
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo "{version} (Claude Code)"\nexit 0\n')
    fake.chmod(0o755)
    return fake


def test_without_claude_one_line_says_how_to_install_it(tracer_here: Run, tmp_path: Path) -> None:
    done = tracer_here(
        "record", "--claude-code", "--scenario", "12-empty-output", "-o", str(tmp_path / "t"),
        env={"PATH": str(tmp_path), "TRACER_CLAUDE": ""},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "no claude on PATH" in done.stderr and INSTALL in done.stderr
    assert not (tmp_path / "t").exists()


def test_a_claude_path_that_is_not_a_program_is_refused(tracer_here: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "claude"
    done = tracer_here(
        "record", "--claude-code", "--claude", str(missing), "--scenario", "12-empty-output"
    )
    assert done.returncode == 2
    assert f"{missing} is not an executable" in done.stderr and INSTALL in done.stderr


def test_another_version_is_warned_about_once(tracer_here: Run, tmp_path: Path) -> None:
    fake = _fake(tmp_path, "2.0.1")
    assert claude_version(fake) == "2.0.1"
    assert version_warning("2.1.88") is None
    done = tracer_here(
        "record", "--claude-code", "--claude", str(fake), "--scenario", "12-empty-output",
        "-o", str(tmp_path / "t.trace.jsonl"),
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1 and "2.0.1" in warnings[0] and INSTALL in warnings[0]
    # The fake sent nothing: one line says so, exit 2, and no empty trace is left behind.
    assert done.returncode == 2
    assert "claude sent no request of its loop" in lines[-1]
    assert not (tmp_path / "t.trace.jsonl").exists()


def test_options_of_tracers_own_loop_are_refused(tracer_here: Run) -> None:
    done = tracer_here("record", "--claude-code", "--debug", "--scenario", "12-empty-output")
    assert done.returncode == 2 and "--debug steers tracer's own loop" in done.stderr
    done = tracer_here("record", "--claude", "/bin/true", "--scenario", "12-empty-output")
    assert done.returncode == 2 and "--claude PATH goes with --claude-code" in done.stderr
    done = tracer_here("record", "--strip-prose", "--scenario", "12-empty-output")
    assert done.returncode == 2 and "--strip-prose goes with --claude-code" in done.stderr


def test_a_bash_rule_lets_its_command_write_in_the_workspace_only(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIO)
    assert scenario_rules(scenario, tmp_path) == ["Bash(touch:*)", f"Edit(/{tmp_path}/**)"]
    scenario.allow = ["Read"]
    assert scenario_rules(scenario, tmp_path) == ["Read"]


def test_all_needs_a_folder_of_yours(tracer_here: Run, tmp_path: Path) -> None:
    """What a user records keeps Claude Code's own prose: never into the clone's recordings/."""
    done = tracer_here("record", "--all", "--claude-code")
    assert done.returncode == 2 and "give --out DIR" in done.stderr
    done = tracer_here("record", "--all", "--claude-code", "-o", str(tmp_path / "x"))
    assert done.returncode == 2 and "give the folder as --out DIR" in done.stderr


def test_a_stop_while_claude_version_starts_leaves_no_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The signal lands as Popen() returns to its caller: subprocess.run never had the process
    # to kill, and `claude --version` outlived tracer. Now it is started under holding(), the
    # stop comes once it is ours, and it is killed and waited for.
    import os
    import signal

    from tracer.interrupts import Interrupts, SessionInterrupted

    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nexec sleep 300\n")
    fake.chmod(0o755)
    started: list[subprocess.Popen[bytes]] = []
    real_init = subprocess.Popen.__init__

    def init_then_stop(self: subprocess.Popen[bytes], *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        started.append(self)
        os.kill(os.getpid(), signal.SIGTERM)
        [None for _ in range(3)]  # Python code after the signal, where a handler would run

    monkeypatch.setattr(subprocess.Popen, "__init__", init_then_stop)
    try:
        with pytest.raises(SessionInterrupted), Interrupts():
            claude_version(fake)
        assert started and started[0].poll() is not None  # killed and reaped, not running
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
