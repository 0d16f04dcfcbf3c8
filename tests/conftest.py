"""Shared fixtures: record a scripted scenario for real and read its trace back.

Every recording test goes through the same path a user does: a scenario (given here as a dict or
YAML text) is loaded by :func:`tracer.scenario.load_scenario`, played by
:func:`tracer.record.record_scenario` through the real ``anthropic`` SDK and the
:class:`~tracer.agent.scripted.ScriptedTransport`, written by the trace writer and opened with the
lazy :class:`~tracer.trace.reader.TraceReader`. Nothing touches the network.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tracer.paths import ROOT
from tracer.trace.reader import TraceReader

MAIN_SCENARIO = ROOT / "chapters" / "ch12" / "scenarios" / "01-main-walk.yaml"


class Recording:
    """A recorded trace and small queries over it (events by kind, messages by uuid)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reader = TraceReader(path)
        self.events = list(self.reader)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.kind == kind]

    def one(self, kind: str) -> Any:
        found = self.of(kind)
        assert len(found) == 1, f"expected one {kind} event, found {len(found)}"
        return found[0]

    @property
    def messages(self) -> dict[str, Any]:
        return {e.uuid: e for e in self.of("message")}

    @property
    def terminal(self) -> Any:
        assert self.events[-1].kind == "terminal", "a trace must end with its terminal event"
        return self.events[-1]

    def results(self) -> list[dict[str, Any]]:
        """Every mapped ``tool_result`` block, in trace order."""
        return [e.block for e in self.of("mapping")]

    def result_for(self, tool_use_id: str) -> dict[str, Any]:
        return next(e.block for e in self.of("mapping") if e.tool_use_id == tool_use_id)

    def requests(self) -> list[Any]:
        """Every request body, rebuilt from the trace."""
        from tracer.trace.requests import rebuild_requests

        return [r.body for r in rebuild_requests(self.events)]

    def hook_lines(self) -> list[str]:
        return [e.line for e in self.of("debug_hook")]


def scenario_yaml(scenario: dict[str, Any] | str) -> str:
    if isinstance(scenario, str):
        return scenario
    return yaml.safe_dump(
        {"name": "t", "prompt": "go", **scenario}, allow_unicode=True, sort_keys=False
    )


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    """Write a scenario (dict or YAML text) to a file and return its path."""
    counter = iter(range(1, 1000))

    def write(scenario: dict[str, Any] | str) -> Path:
        path = tmp_path / f"scenario-{next(counter)}.yaml"
        path.write_text(scenario_yaml(scenario), encoding="utf-8")
        return path

    return write


@pytest.fixture
def record(tmp_path: Path, write_scenario: Callable[..., Path]) -> Callable[..., Recording]:
    """``record(scenario, **kwargs) -> Recording``: play it and open the trace it left."""
    from tracer.record import record_scenario
    from tracer.scenario import load_scenario

    counter = iter(range(1, 1000))

    def play(scenario: dict[str, Any] | str | Path, **kwargs: Any) -> Recording:
        path = scenario if isinstance(scenario, Path) else write_scenario(scenario)
        output = tmp_path / f"run-{next(counter)}.trace.jsonl"
        record_scenario(load_scenario(path), output, **kwargs)
        return Recording(output)

    return play


def run_tracer(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m tracer ARGS`` in a fresh interpreter, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tracer", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd or ROOT,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def tracer_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_tracer


@pytest.fixture
def open_recording() -> Callable[[Path], Recording]:
    """Open a trace written some other way (the CLI, a subprocess) as a :class:`Recording`."""
    return Recording


@pytest.fixture
def main_walk(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """The chapter's running example, recorded fresh."""
    from tracer.record import record_scenario
    from tracer.scenario import load_scenario

    output = tmp_path_factory.mktemp("main") / "01-main-walk.trace.jsonl"
    record_scenario(load_scenario(MAIN_SCENARIO), output)
    return Recording(output)
