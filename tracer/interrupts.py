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
"""

from __future__ import annotations

import _signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType, TracebackType
    from typing import Any

HANDLED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
_NAMES = {_signal.SIGINT: "Ctrl-C", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}
#: The names ``signal.Signals`` gives the handled signals.
_SIGNAL_NAMES = {_signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}


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

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def reason(self) -> str:
        if self.received is None or self.received == _signal.SIGINT:
            return "interrupted by the user (Ctrl-C)"
        return f"stopped by {signal_name(self.received)}"

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None:
            return  # already stopping: let the clean-up finish
        self.received = signum
        raise SessionInterrupted(signum)

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
        for signum, previous in self._previous.items():
            _signal.signal(signum, previous)
        self._previous.clear()
        if exc is not None:
            self.note(exc)

    def raise_if_received(self) -> None:
        if self.received is not None:
            raise SessionInterrupted(self.received)
