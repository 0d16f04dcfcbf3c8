"""SIGTERM, SIGHUP and SIGINT while the replay (or the tour) is on screen: the terminal first.

Textual puts the terminal in raw mode on the alternate screen, with mouse reporting on, and puts
it back only when the app exits. A signal whose default is to end the process on the spot
(SIGTERM from ``kill``, ``timeout`` or an editor closing its terminal pane; SIGHUP when the
terminal itself goes) would leave the user's shell in that state, and a SIGINT (in raw mode
Ctrl-C is a key, which the app answers by saying which key quits, so this one comes from
``kill -INT``) raised ``KeyboardInterrupt`` in whatever the app was doing, half-way through
mounting a panel as likely as not. So all three are asked to stop the app as ``q`` does; once
it has stopped, the command exits 128 + the signal's number, as ``record`` does
(:class:`tracer.interrupts.SessionInterrupted`).

Two moments matter. While the app runs, its event loop takes the signal
(``loop.add_signal_handler``: the safe way to act on one inside asyncio). Before the app listens
(Textual may already have switched the screen), :func:`stoppable` keeps the signal, and the app
stops as soon as it does listen. A signal the parent set to be ignored (``nohup``) stays
ignored, and a headless app (the tests' Pilot, ``--screenshot``) owns no terminal and listens for
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from tracer.interrupts import SessionInterrupted

STOPPING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

_received: int | None = None
"""The stop signal that came during this run. Module state, as signal handlers are: a process
has one set of them."""


def _keep(signum: int, frame: FrameType | None = None) -> None:
    global _received
    if _received is None:
        _received = signum


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Around an app's ``run()``: a stop signal before the app listens is kept for it, and the
    signals' handlers are as they were afterwards."""
    global _received
    _received = None
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in STOPPING:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, _keep)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def listen(stop: Callable[[], Any]) -> None:
    """From now until the running event loop closes (the app's own: closing it removes the
    handlers), call ``stop()`` on a stop signal; at once if one came already."""
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread takes signals

    def stopping(signum: int) -> None:
        first = _received is None
        _keep(signum)
        if first:
            stop()

    loop = asyncio.get_running_loop()
    for signum in STOPPING:
        if signal.getsignal(signum) is signal.SIG_IGN:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stopping, signum)
    if _received is not None:
        loop.call_soon(stop)


def raise_if_stopped() -> None:
    """After the app has given the terminal back: end the command as the signal asked."""
    if _received is not None:
        raise SessionInterrupted(_received)
