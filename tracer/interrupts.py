"""SIGINT, SIGTERM and SIGHUP: three ways to say "stop", one way to stop.

Claude Code treats Ctrl-C as an abort signal that every running step listens to
(``AbortController`` in ``query.ts``; the tools see ``abortController.signal``). Python's nearest
equivalent is :class:`KeyboardInterrupt`, which the loop and the tool runner already handle: the
running tools are killed, every unanswered call gets the interruption result and the trace ends
with its ``terminal`` event. Here SIGTERM (``kill``, a container stopping) and SIGHUP (the terminal
closing) take the same path, instead of killing the recorder on the spot and leaving the session
without an ending, its commands orphaned and its temporary workspace behind.

The first signal raises :class:`SessionInterrupted`; later ones are ignored, so the clean-up they
asked for is not itself interrupted. When the session is over, :meth:`Interrupts.raise_if_received`
raises again, so ``record`` exits 128 + the signal's number (130, 143, 129), never 0.

Every batch command (``tracer import``, ``show``, the doctor) runs inside :class:`Interrupts`, so
this module is part of every start: it uses ``_signal``, the C module the ``signal`` module wraps,
whose functions take and give plain numbers. ``signal`` itself builds three ``IntEnum`` classes as
it is imported (3.5M instructions, 1% of an import of a real session), and ``threading``, which
only told the main thread apart, 2.9M more: ``_signal.signal`` refuses any other thread by
itself (``ValueError``), which is the check.

However it lands, the clean-up a stop starts is bounded: in the console script's process, the
first stop also starts a timer thread that ends the process, with the same exit code and a line
saying so, if it is still there :data:`GRACE` seconds later (:attr:`Interrupts.grace`).
An exception raised by a signal handler can land where no ``finally`` undoes what was just done
(a lock taken inside a Python ``__enter__``, before the ``with`` body begins), and the clean-up
could then wait for it forever; the second Ctrl-C, ignored, could not end it either.

A signal that comes while a module is being imported is held until the import is over. Raised
there, the exception lands where it cannot stop anything, or breaks what it lands in: in the
import lock's weakref callback Python prints it as ignored and the command runs on to exit 0; in
a compiled module's initialisation (orjson's, importing what it needs) the half-built module
crashes the process with SIGSEGV. The held signal is raised again shortly after, by a one-shot
``SIGALRM`` timer, once the stack holds no import.
"""

from __future__ import annotations

import _signal
import _thread
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType, TracebackType
    from typing import Any

HANDLED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
_NAMES = {_signal.SIGINT: "Ctrl-C", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}
#: The names ``signal.Signals`` gives the handled signals.
_SIGNAL_NAMES = {_signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}
#: The code of the import machinery: a frame of these on the stack means an import is running.
_IMPORT_MACHINERY = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
#: How soon a held signal is tried again (seconds).
RETRY = 0.01
#: How long the clean-up after a stop may take in a process that ends with it (seconds): more
#: than killing a session's commands and removing its cgroups take (a few seconds at most).
GRACE = 30.0


def _end_after_grace(code: int, grace: float) -> None:
    """The stop's clean-up timer: unless the process has ended by then, end it."""
    time.sleep(grace)
    os.write(2, f"tracer: the clean-up did not end within {grace:g} s of the stop\n".encode())
    os._exit(code)


class _Holding:
    """``with holding():`` a stop signal waits until the block is over, as during an import:
    for a few steps that must not be cut apart (a temporary folder made and put where its
    clean-up will find it)."""

    depth = 0
    #: A recording's tools start their commands from several threads at once, each holding the
    #: stop while its command starts. ``+=`` is not atomic in Python's own terms (the GIL makes
    #: it so today; a free-threaded build would not), and a lost step would hold stops forever.
    _count_lock = _thread.allocate_lock()

    def __enter__(self) -> None:
        with _Holding._count_lock:
            _Holding.depth += 1

    def __exit__(self, *exc: object) -> None:
        with _Holding._count_lock:
            _Holding.depth -= 1


def holding() -> _Holding:
    return _Holding()


def importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` or one of its callers is the import machinery at work (or a
    :func:`holding` block runs)."""
    if _Holding.depth:
        return True
    while frame is not None:
        if frame.f_code.co_filename in _IMPORT_MACHINERY:
            return True
        frame = frame.f_back
    return False


def signal_name(signum: int) -> str:
    """``signal.Signals(signum).name``; ``signal`` is imported only for a signal not handled
    here (none of ours raises one)."""
    known = _SIGNAL_NAMES.get(signum)
    if known is not None:
        return known
    import signal

    return signal.Signals(signum).name


class SessionInterrupted(KeyboardInterrupt):
    """A stop signal arrived. ``exit_code`` is what the shell would report: 128 + its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.exit_code = 128 + signum
        self.name = _NAMES.get(signum) or signal_name(signum)


class Interrupts:
    """Context manager that turns the stop signals into :class:`SessionInterrupted`.

    Only the main thread may install signal handlers; elsewhere (a test calling the recorder from
    a worker thread) the defaults stay and nothing is recorded here. A signal the parent set to
    be ignored (``nohup``, ``&`` in a script) is left ignored.
    """

    #: Set by the console script: the process ends when its command returns.
    process_ends = False
    #: Whether a stop came in this process (to any Interrupts).
    stopping = False
    #: Set by the console script, whose process ends with its command: how long the clean-up
    #: after a stop may take. Never set in a process that goes on (a test calling ``main``):
    #: the timer would end that process too.
    grace: float | None = None

    def __init__(self, *, raising: bool = True) -> None:
        #: False: a stop is only noted in :attr:`received`, for a loop that checks it where
        #: stopping is safe (the follow, which would lose the lines it was writing).
        self.raising = raising
        self.received: int | None = None
        self._previous: dict[int, Any] = {}
        #: A signal that came during an import, waiting for it to end; the SIGALRM handler before.
        self.held: int | None = None
        self._alarm: Any = None

    @property
    def reason(self) -> str:
        if self.received is None or self.received == _signal.SIGINT:
            return "interrupted by the user (Ctrl-C)"
        return f"stopped by {signal_name(self.received)}"

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None or self.held is not None:
            return  # already stopping: let the clean-up finish
        if Interrupts.grace is not None:
            _thread.start_new_thread(_end_after_grace, (128 + signum, Interrupts.grace))
            Interrupts.grace = None  # one timer, for the first stop
        if not self.raising:
            self.received = signum
            return
        if importing(frame):
            self.held = signum
            self._alarm = _signal.signal(_signal.SIGALRM, self._retry)
            _signal.setitimer(_signal.ITIMER_REAL, RETRY)
            return
        self.received = signum
        raise SessionInterrupted(signum)

    def _retry(self, alarm: int, frame: FrameType | None) -> None:
        """The timer's handler: raise the held signal, unless an import is (still) running."""
        if self.held is None:
            return
        if importing(frame):
            _signal.setitimer(_signal.ITIMER_REAL, RETRY)
            return
        signum, self.held = self.held, None
        self._release_alarm()
        self._handle(signum, frame)

    def _release_alarm(self) -> None:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, self._alarm)
        self._alarm = None

    def note(self, exc: BaseException) -> None:
        """A plain KeyboardInterrupt (raised before our handler was in place) counts as SIGINT."""
        if self.received is None and isinstance(exc, KeyboardInterrupt):
            self.received = getattr(exc, "signum", _signal.SIGINT)

    def __enter__(self) -> Interrupts:
        for signum in HANDLED:
            # A signal ignored on purpose stays ignored: ``nohup tracer record ...`` must
            # survive the terminal closing, and a background job is deaf to Ctrl-C.
            if _signal.getsignal(signum) == _signal.SIG_IGN:
                continue
            try:
                self._previous[signum] = _signal.signal(signum, self._handle)
            except ValueError:  # not the main thread (of the main interpreter): none installed
                break
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        held, self.held = self.held, None
        if held is not None:
            self._release_alarm()
        if exc is not None:
            self.note(exc)
        elif held is not None and self.received is None:
            # The work ended before the timer came: what it wrote is whole, and it still stops
            # as the signal asked (128 + its number, never 0).
            self.received = held
        if self.received is not None:
            Interrupts.stopping = True
        # A process that ends with this stop stays deaf to the next signal (the second Ctrl-C,
        # SIGHUP after SIGTERM): given back, Python's handler or the default would make it a
        # new interrupt while the stop is reported, or kill the process, and the exit code
        # would be the second signal's, not the first's.
        deaf = Interrupts.process_ends and Interrupts.stopping
        for signum, previous in self._previous.items():
            _signal.signal(signum, _signal.SIG_IGN if deaf else previous)
        self._previous.clear()
        if exc is None and held is not None and self.received == held:
            raise SessionInterrupted(held)

    def raise_if_received(self) -> None:
        if self.received is not None:
            raise SessionInterrupted(self.received)
