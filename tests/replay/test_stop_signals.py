"""SIGTERM, SIGHUP and SIGINT while the replay is on screen give the terminal back, then exit
128 + the signal's number (:mod:`tracer.replay.stop_signals`).

Pilot's apps are headless and listen for no signal, so the app is run here as a user runs it: in
a pseudo-terminal of 80x24, with the signal sent once it has drawn.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import signal
import sys
import time

import pytest

from tracer.files.paths import ROOT
from tracer.interrupts import SessionInterrupted
from tracer.replay import stop_signals

ENTER, LEAVE = b"\x1b[?1049h", b"\x1b[?1049l"  # the alternate screen, on and off


def _read(fd: int, until: float) -> bytes:
    out = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            out += chunk
    return out


def _replay_stopped_by(signum: int) -> tuple[int, bytes]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the replay of the bundled recording, as a user starts it
        os.chdir(ROOT)
        os.environ.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
        os.execv(sys.executable, [sys.executable, "-m", "tracer", "replay", "--lang", "en"])
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"01-main-walk" not in seen and time.monotonic() < deadline:  # drawn: its name
            seen += _read(fd, time.monotonic() + 0.2)
        assert ENTER in seen, seen[-400:]
        os.kill(pid, signum)
        seen += _read(fd, time.monotonic() + 20)
        # Bounded: a replay that did not stop is a failure with what it drew, not a hung run.
        deadline = time.monotonic() + 60
        done, status = os.waitpid(pid, os.WNOHANG)
        while not done and time.monotonic() < deadline:
            seen += _read(fd, time.monotonic() + 0.2)
            done, status = os.waitpid(pid, os.WNOHANG)
        assert done, f"the replay did not stop on signal {signum}: {seen[-600:]!r}"
        return os.waitstatus_to_exitcode(status), seen
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal of Linux")
@pytest.mark.parametrize(
    ("signum", "code", "name"),
    [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGHUP, 129, "SIGHUP")],
)
def test_a_stop_signal_gives_the_terminal_back(signum: int, code: int, name: str) -> None:
    exit_code, seen = _replay_stopped_by(signum)
    assert exit_code == code
    assert seen.rfind(LEAVE) > seen.rfind(ENTER)  # the alternate screen was left at the end
    assert b"Traceback" not in seen
    assert f"tracer: interrupted ({name})".encode() in seen[seen.rfind(LEAVE) :]


def test_a_signal_before_the_app_listens_stops_it_as_soon_as_it_does() -> None:
    stopped: list[str] = []

    async def app() -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # Textual is starting: no loop handler yet
        await asyncio.sleep(0)
        assert stopped == []
        stop_signals.listen(lambda: stopped.append("exit"))
        await asyncio.sleep(0)

    with stop_signals.stoppable():
        asyncio.run(app())
    assert stopped == ["exit"]
    with pytest.raises(SessionInterrupted) as raised:
        stop_signals.raise_if_stopped()
    assert raised.value.exit_code == 143
    # Afterwards the handlers are what they were, and the next run starts with no signal kept.
    assert signal.getsignal(signal.SIGTERM) is not stop_signals._keep
    with stop_signals.stoppable():
        pass
    stop_signals.raise_if_stopped()


def test_a_signal_ignored_on_purpose_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup leaves it
    try:
        with stop_signals.stoppable():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
        stop_signals.raise_if_stopped()  # nothing was kept: raises nothing
    finally:
        signal.signal(signal.SIGHUP, previous)
