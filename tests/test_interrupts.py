"""tracer.interrupts on ``_signal`` alone: the handlers it installs and gives back, the signals it
leaves ignored, the threads it leaves alone, and the names and exit codes a stop carries."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from tracer.interrupts import HANDLED, Interrupts, SessionInterrupted, signal_name


def test_the_stop_signals_are_taken_then_given_back() -> None:
    before = {signum: signal.getsignal(signum) for signum in HANDLED}
    with pytest.raises(SessionInterrupted) as raised, Interrupts() as stops:
        assert all(signal.getsignal(signum) == stops._handle for signum in HANDLED)
        os.kill(os.getpid(), signal.SIGTERM)
    assert raised.value.exit_code == 143 and raised.value.name == "SIGTERM"
    assert stops.reason == "stopped by SIGTERM"
    assert {signum: signal.getsignal(signum) for signum in HANDLED} == before


def test_an_ignored_signal_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup leaves it
    try:
        with Interrupts() as stops:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == stops._handle
        assert signal.SIGHUP not in stops._previous
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_another_thread_installs_nothing() -> None:
    before = {signum: signal.getsignal(signum) for signum in HANDLED}
    seen: list[object] = []

    def enter() -> None:
        with Interrupts() as stops:
            seen.append(dict(stops._previous))
            seen.append({signum: signal.getsignal(signum) for signum in HANDLED})

    worker = threading.Thread(target=enter)
    worker.start()
    worker.join(timeout=30)
    assert seen == [{}, before]


@pytest.mark.parametrize(
    ("signum", "name", "code"),
    [
        (signal.SIGINT, "Ctrl-C", 130),
        (signal.SIGTERM, "SIGTERM", 143),
        (signal.SIGHUP, "SIGHUP", 129),
    ],
)
def test_a_stop_says_which_signal_and_exits_as_the_shell_would(
    signum: int, name: str, code: int
) -> None:
    stop = SessionInterrupted(signum)
    assert (stop.name, stop.exit_code) == (name, code)
    assert signal_name(signum) == signal.Signals(signum).name


def test_a_signal_not_handled_is_still_named() -> None:
    assert signal_name(signal.SIGUSR1) == "SIGUSR1"
    assert SessionInterrupted(signal.SIGUSR1).name == "SIGUSR1"
