"""Shared fixtures (record a scripted scenario for real and read its trace back) and the suite's
two speeds.

**Two speeds.** End-to-end tests that take more than about three seconds (a whole tour walked
key by key, the wheel built and installed, a real browser or Phoenix server) carry
``@pytest.mark.slow``.
The default run skips them, saying so in its summary; CI runs them, and so does anyone who asks:
``CI`` set in the environment (``.ci/run`` runs with ``CI=true``), ``--runslow``, or ``-m slow``.
So the README's test command and CI's are one command, and only the environment differs. The run
is spread over worker processes by ``pytest-xdist`` (``-n auto`` in ``pyproject.toml``, two
workers per CPU: see :func:`pytest_xdist_auto_num_workers`): a session fixture is made once per
worker, and tests write only under ``tmp_path``.

Every recording test goes through the same path a user does: a scenario (given here as a dict or
YAML text) is loaded by :func:`tracer.chapter.scenario.load_scenario`, played by
:func:`tracer.record.run.record_scenario` through the real ``anthropic`` SDK and the
:class:`~tracer.agent.scripted.ScriptedTransport`, written by the trace writer and opened with the
lazy :class:`~tracer.trace.reader.TraceReader`. Nothing touches the network.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from run_helpers import Recording, run_tracer

from tracer.files.paths import ROOT

MAIN_SCENARIO = ROOT / "chapters" / "ch12" / "scenarios" / "01-main-walk.yaml"

# The browser tests share their fixtures through browser_helpers (the doctor's through
# doctor_helpers, the page's through export_html_helpers), which each of them names in
# ``pytest_plugins``, and import from it as well. Marked here, before anything imports them, their
# asserts are rewritten as a test module's are (and pytest does not warn that it was too late).
pytest.register_assert_rewrite("browser_helpers", "doctor_helpers", "export_html_helpers")

# The stop-signal tests send SIGHUP (a closing terminal) and expect tracer to stop. Started under
# ``nohup`` (or by a runner that ignores SIGHUP), this process and every worker and command it
# starts would inherit SIGHUP ignored, and tracer rightly leaves an ignored signal ignored: those
# tests then waited forever. So the suite starts from SIGHUP's default, as a terminal gives it;
# the test of a signal ignored on purpose ignores it itself. Likewise SIGINT, which a shell
# without job control leaves ignored for a command it starts in the background (``.ci/run &``),
# and SIGTERM: the suite starts from what Python gives a process started from a terminal.
for _signum, _default in (
    (signal.SIGHUP, signal.SIG_DFL),
    (signal.SIGTERM, signal.SIG_DFL),
    (signal.SIGINT, signal.default_int_handler),
):
    if signal.getsignal(_signum) is signal.SIG_IGN:
        signal.signal(_signum, _default)


@pytest.fixture(autouse=True)
def _stop_signals_as_they_were() -> Iterator[None]:
    """Each test starts with the stop signals' handlers and :class:`~tracer.interrupts.
    Interrupts`' process-wide state as the last one found them. An in-process ``main(...,
    ends_process=True)`` after a stop leaves SIGINT, SIGTERM and SIGHUP ignored, as the console
    script's process must be until it exits; a later test in the same worker then sent a signal
    nobody heard (a stop test passed alone and failed after two other files)."""
    from tracer.interrupts import HANDLED, Interrupts

    handlers = {signum: signal.getsignal(signum) for signum in HANDLED}
    state = (Interrupts.process_ends, Interrupts.stopping)
    yield
    for signum, handler in handlers.items():
        if handler is not None:  # None: set from C, not by Python; nothing to put back
            signal.signal(signum, handler)
    Interrupts.process_ends, Interrupts.stopping = state


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (CI runs them: CI is set there)",
    )


def run_slow(config: pytest.Config) -> bool:
    """Whether this run includes the slow tests: in CI, with ``--runslow``, or asked by ``-m``."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return ci or bool(config.getoption("--runslow")) or "slow" in (config.option.markexpr or "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if run_slow(config):
        return
    skip = pytest.mark.skip(reason="slow: runs in CI (CI set), or with --runslow or -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: two workers per CPU (at most eight more than the CPUs), except when
    snapshots are being rewritten.

    Much of the suite waits rather than computes: a recorder subprocess starting, a signal
    being delivered, a Textual app idling between keys. With one worker per CPU those waits
    left the CPUs idle; on a 2-core machine four workers took the default run from 177 s to
    150 s. ``--snapshot-update`` deletes the snapshots its own run did not use; a worker sees
    only its share of the tests, so the rewrite runs in one process.
    """
    if config.getoption("--snapshot-update", default=False):
        return 0
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = cpus or 1
    return min(2 * cpus, cpus + 8)


@pytest.fixture(scope="session", autouse=True)
def _tour_state_apart(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tour keeps its progress under ``$TRACER_STATE_DIR``: a folder of the session's own,
    inherited by every ``tracer`` the tests start, so no test reads or writes the user's."""
    before = os.environ.get("TRACER_STATE_DIR")
    os.environ["TRACER_STATE_DIR"] = str(tmp_path_factory.mktemp("tour-state"))
    yield
    if before is None:
        os.environ.pop("TRACER_STATE_DIR", None)
    else:
        os.environ["TRACER_STATE_DIR"] = before


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
    from tracer.chapter.scenario import load_scenario
    from tracer.record.run import record_scenario

    counter = iter(range(1, 1000))

    def play(scenario: dict[str, Any] | str | Path, **kwargs: Any) -> Recording:
        path = scenario if isinstance(scenario, Path) else write_scenario(scenario)
        output = tmp_path / f"run-{next(counter)}.trace.jsonl"
        record_scenario(load_scenario(path), output, **kwargs)
        return Recording(output)

    return play


@pytest.fixture
def tracer_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_tracer


@pytest.fixture
def tracer_here(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``tracer ARGS`` run by the command's own ``main`` in this process, answered as
    :func:`run_tracer` answers (exit code, stdout, stderr).

    For the tests about what ``record`` does with its arguments: a fresh interpreter costs each
    of them two seconds of CPU, most of it importing ``anthropic``, which a worker imports once.
    The tests about the recorder *process* (its signals, its environment block, its imports)
    keep :func:`run_tracer`. ``env`` and ``cwd`` hold for the call only.
    """
    from tracer.cli.main import main

    def run(
        *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        with monkeypatch.context() as scoped:
            for name, value in (env or {}).items():
                scoped.setenv(name, value)
            scoped.chdir(cwd or ROOT)
            code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


@pytest.fixture
def quick_sdk_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's own back-off before it retries a request that timed out, cut from half a second
    (and twice that the next time) to a hundredth.

    The tests that script timeouts count the attempts and what each one recorded, never how long
    the client waited between them; a server's ``retry-after`` is obeyed as before.
    """
    import anthropic._base_client as base

    monkeypatch.setattr(base, "INITIAL_RETRY_DELAY", 0.01, raising=False)


@pytest.fixture
def open_recording() -> Callable[[Path], Recording]:
    """Open a trace written some other way (the CLI, a subprocess) as a :class:`Recording`."""
    return Recording


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``recorded(scenario) -> trace``: a scenario file recorded fresh, once per session.

    Once per xdist worker, that is; the tests that share a recording read it and never write to
    it (one that needs a changed copy writes that to its own ``tmp_path``).
    """
    from tracer.chapter.scenario import load_scenario
    from tracer.record.run import record_scenario

    base = tmp_path_factory.mktemp("recorded")
    made: dict[Path, Path] = {}

    def get(scenario: Path) -> Path:
        if scenario not in made:
            folder = base / scenario.parent.name  # scenarios/ and faults/ apart, as recordings/
            folder.mkdir(exist_ok=True)
            output = folder / f"{scenario.stem}.trace.jsonl"
            made[scenario] = record_scenario(load_scenario(scenario), output)
        return made[scenario]

    return get


@pytest.fixture(scope="session")
def main_walk(recorded: Callable[[Path], Path]) -> Recording:
    """The chapter's running example, recorded fresh once per session."""
    return Recording(recorded(MAIN_SCENARIO))
