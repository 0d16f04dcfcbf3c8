"""tracer.interrupts on ``_signal`` alone: the handlers it installs and gives back, the signals it
leaves ignored, the threads it leaves alone, and the names and exit codes a stop carries."""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from tracer import interrupts
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


def _module_that_signals(folder: Path, name: str, signum: int) -> None:
    """A module whose body sends ``signum`` to this process half-way, then goes on."""
    (folder / f"{name}.py").write_text(
        "import os, sys\n"
        f"os.kill(os.getpid(), {int(signum)})\n"
        "frame = sys._getframe()  # the body's frame: the import machinery is its caller\n"
        "done = True\n"
    )


@pytest.fixture
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    # The timer stays armed through the test but never fires in it: the test calls its
    # handler itself, at the moment it chooses.
    monkeypatch.setattr(interrupts, "RETRY", 3600.0)
    return tmp_path


def test_a_signal_during_an_import_waits_for_the_import_to_end(importable: Path) -> None:
    """Raised inside the import machinery, a stop is lost (the import lock's weakref callback
    prints it as ignored and the command exits 0) or crashes a compiled module half-built
    (orjson's initialisation: SIGSEGV). It is held, the module loads whole, and the timer's
    handler raises it once no import is running."""
    _module_that_signals(importable, "signals_while_imported", signal.SIGTERM)
    alarm_before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(SessionInterrupted) as raised, Interrupts() as stops:
        module = importlib.import_module("signals_while_imported")
        assert module.done and stops.held == signal.SIGTERM and stops.received is None
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
        # The timer comes while the module's own frame is still on a stack: not yet.
        assert interrupts.importing(module.frame)
        stops._retry(signal.SIGALRM, module.frame)
        assert stops.held == signal.SIGTERM and signal.getitimer(signal.ITIMER_REAL)[0] > 0
        stops._retry(signal.SIGALRM, sys._getframe())
    assert raised.value.exit_code == 143 and stops.received == signal.SIGTERM
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert signal.getsignal(signal.SIGALRM) == alarm_before


def test_a_signal_held_when_the_work_ends_still_stops_it(importable: Path) -> None:
    _module_that_signals(importable, "signals_at_the_end", signal.SIGHUP)
    with pytest.raises(SessionInterrupted) as raised, Interrupts() as stops:
        importlib.import_module("signals_at_the_end")
    assert raised.value.exit_code == 129 and stops.reason == "stopped by SIGHUP"
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_a_signal_outside_an_import_is_raised_at_once() -> None:
    assert not interrupts.importing(sys._getframe())
    with pytest.raises(SessionInterrupted), Interrupts() as stops:
        stops._handle(signal.SIGINT, sys._getframe())
    assert stops.held is None and signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_a_process_ending_with_a_stop_stays_deaf_to_the_next_signal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The console script's process ends with the stop: a second signal while it is reported
    must not become a new interrupt (exit 130 after SIGTERM) or kill it (the second's code)."""
    before = {signum: signal.getsignal(signum) for signum in HANDLED}
    monkeypatch.setattr(Interrupts, "process_ends", True)
    monkeypatch.setattr(Interrupts, "stopping", False)
    try:
        with pytest.raises(SessionInterrupted) as raised, Interrupts():
            os.kill(os.getpid(), signal.SIGTERM)
        assert raised.value.exit_code == 143
        assert all(signal.getsignal(signum) is signal.SIG_IGN for signum in HANDLED)
        os.kill(os.getpid(), signal.SIGINT)  # ignored: nothing is raised
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_in_process_the_handlers_come_back_after_a_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Interrupts, "process_ends", False)
    before = {signum: signal.getsignal(signum) for signum in HANDLED}
    with pytest.raises(SessionInterrupted), Interrupts():
        os.kill(os.getpid(), signal.SIGHUP)
    assert {signum: signal.getsignal(signum) for signum in HANDLED} == before


def test_a_loop_that_checks_for_itself_is_only_told() -> None:
    """``raising=False`` (the follow): the stop is noted, never raised into what is running."""
    with Interrupts(raising=False) as stops:
        os.kill(os.getpid(), signal.SIGHUP)
        [None for _ in range(3)]  # Python code after the signal, where the handler runs
        assert stops.received == signal.SIGHUP
        os.kill(os.getpid(), signal.SIGTERM)  # a second one changes nothing
        [None for _ in range(3)]
    assert stops.received == signal.SIGHUP and stops.reason == "stopped by SIGHUP"


def test_a_signal_in_a_holding_block_waits_for_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interrupts, "RETRY", 3600.0)  # the test calls the timer's handler
    with pytest.raises(SessionInterrupted) as raised, Interrupts() as stops:
        with interrupts.holding():
            os.kill(os.getpid(), signal.SIGTERM)
            [None for _ in range(3)]  # Python code after the signal: nothing is raised here
            stops._retry(signal.SIGALRM, sys._getframe())  # still held: the timer again
            assert stops.held == signal.SIGTERM and signal.getitimer(signal.ITIMER_REAL)[0] > 0
        stops._retry(signal.SIGALRM, sys._getframe())
    assert raised.value.exit_code == 143 and interrupts._Holding.depth == 0


def test_a_session_folder_is_never_made_and_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop right after ``mkdtemp`` made the folder (the stress run: SIGHUP into record) left
    it behind: the caller's clean-up never had it. Now the folders are returned, then it stops."""
    import tempfile

    from tracer.record.workspace import SessionDirs

    monkeypatch.setenv("TRACER_SESSIONS_DIR", str(tmp_path))
    made = tempfile.mkdtemp

    def make_then_stop(*args: object, **kwargs: object) -> str:
        folder = made(*args, **kwargs)  # type: ignore[call-overload]
        os.kill(os.getpid(), signal.SIGHUP)
        [None for _ in range(3)]
        return str(folder)

    monkeypatch.setattr(tempfile, "mkdtemp", make_then_stop)
    found: list[SessionDirs] = []
    with pytest.raises(SessionInterrupted), Interrupts():
        found.append(SessionDirs.create())
    assert found and found[0].workspace.is_dir()
    found[0].cleanup()
    assert list(tmp_path.iterdir()) == []


def test_a_clean_up_that_never_ends_is_ended_with_the_stop_s_exit_code() -> None:
    # The console script bounds the clean-up after a stop. Here it deadlocks on purpose (a lock
    # taken twice, as an exception landing inside a Python __enter__ could leave one taken): the
    # timer ends the process, with the code the stop would have given it.
    import subprocess
    import textwrap

    script = textwrap.dedent(
        """
        import _thread, os, signal
        from tracer.interrupts import Interrupts, SessionInterrupted
        Interrupts.grace = 0.2
        try:
            with Interrupts():
                os.kill(os.getpid(), signal.SIGTERM)
        except SessionInterrupted:
            lock = _thread.allocate_lock()
            lock.acquire()
            lock.acquire()  # never returns
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 143, proc.stderr
    assert proc.stderr == "tracer: the clean-up did not end within 0.2 s of the stop\n"


def test_no_clean_up_timer_where_the_process_goes_on() -> None:
    # In-process (a test calling main, the replay's app), a timer would end the whole process.
    import _thread

    assert Interrupts.grace is None
    threads = _thread._count()
    with pytest.raises(SessionInterrupted), Interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
    assert _thread._count() == threads
