"""Whose time a wait is measured in: the wall's, or the scripted server's.

A recording against the real API waits in real seconds: a read timeout, a stream that only
pings, a back-off before the next try. A scripted recording plays the same waits, but the
server it waits for is a script, and so is its timing: ``{hang: 3}`` means "three events, then
silence until the client gives up", not "make the machine sit idle". :class:`ScriptClock` is the
time of such a server. Its :meth:`~ScriptClock.sleep` moves its own hands and returns at once,
and everything that judges a wait against it (the stall detector, the seam's back-off) reads the
same hands. So a scripted stall is detected after exactly the scripted number of pings, on an
idle laptop and on a machine busy with something else, and no scripted recording ever waits.

:class:`WallClock` is the real thing, for the real API and for the tests and benches that
measure real waits on loopback sockets.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """Seconds that only go forward, and a way to let some of them pass."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class WallClock:
    """Real time: :func:`time.monotonic`, and a real (interruptible) sleep."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            # An Event's wait, unlike time.sleep, lets a signal handler's exception through at
            # once on every platform Python supports; a Ctrl-C need not wait out a back-off.
            threading.Event().wait(seconds)


class ScriptClock:
    """The scripted server's time: a sleep moves the hands forward and returns at once.

    Thread-safe, since the SDK reads a response on the thread that sent it while the seam may
    read the clock from the loop's thread.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self._now += seconds
