"""Batch commands run with Python's cycle collector paused; only a long-running one gets it back.

Called in-process (as the tests and a library user call ``main``), a command gives the collector
back when it returns, on its error path too. From the console script, which ends the process, a
batch command never turns it on again, while the replay, which runs as long as the user wants,
does.
"""

from __future__ import annotations

from typing import Any

import pytest
from untrusted_helpers import MAIN, _run

from tracer.cli.main import main


def test_batch_commands_pause_the_cycle_collector_and_give_it_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    import tracer.cli.show

    seen: list[bool] = []
    real = tracer.cli.show.show_lines

    def spy(reader: Any) -> Any:
        seen.append(gc.isenabled())
        return real(reader)

    monkeypatch.setattr(tracer.cli.show, "show_lines", spy)
    assert gc.isenabled()
    code, _, _ = _run(capsys, ["show", str(MAIN)])
    assert code == 0 and seen == [False] and gc.isenabled()
    code, _, _ = _run(capsys, ["show", str(MAIN) + ".missing"])
    assert code == 2 and gc.isenabled()  # given back on the error path too


def test_from_the_console_script_a_batch_command_never_gets_the_collector_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The console script pauses the collector before it imports anything and ends the process
    # when main returns: a batch command keeps it paused through start-up, its work and its
    # end (each time it came back it walked all that was made meanwhile, freeing nothing),
    # while the replay, which runs for as long as the user wants, gets it back.
    import gc

    import tracer.cli.show
    import tracer.replay.command

    seen: list[tuple[str, bool]] = []
    show = tracer.cli.show.show_lines

    def show_spy(reader: Any) -> Any:
        seen.append(("show", gc.isenabled()))
        return show(reader)

    def replay_spy(args: Any) -> int:
        seen.append(("replay", gc.isenabled()))
        return 0

    collections: list[int] = []
    monkeypatch.setattr(tracer.cli.show, "show_lines", show_spy)
    monkeypatch.setattr(tracer.replay.command, "run", replay_spy)
    monkeypatch.setattr(gc, "callbacks", [lambda phase, info: collections.append(1)])
    try:
        gc.disable()
        assert main(["show", str(MAIN)], ends_process=True) == 0
        assert seen == [("show", False)] and not gc.isenabled() and not collections
        gc.disable()
        assert main(["replay", str(MAIN)], ends_process=True) == 0
        assert seen[1:] == [("replay", True)] and gc.isenabled()
    finally:
        gc.enable()
    capsys.readouterr()
