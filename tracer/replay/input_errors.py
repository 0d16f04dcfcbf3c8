"""Bad input found while the replay is drawing: one line and exit 2, as before it started.

:func:`tracer.replay.factory.make_app` checks the trace and the first step before Textual starts.
The rest of a big trace is read lazily, so a broken line deep in the file can still turn up while
a later step is drawn. Textual treats any exception there as a crash of the app and prints a
full traceback (a few hundred lines) before exiting; for a :class:`~tracer.errors.UserError` that
is noise. :class:`InputErrorApp`, the replay app's base class, keeps the error, closes the app
quietly, and the command re-raises it after the app has given the terminal back, so it ends as
the usual ``tracer: file:line: what``.

It overrides ``App._handle_exception``, the hook Textual calls for any exception in a handler,
a render or a worker (Textual 0.x to 8.x); everything that is not bad input still goes there.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from tracer.errors import UserError


class InputErrorApp(App[None]):
    """An ``App`` that a :class:`UserError` closes; the error waits in :attr:`input_error`."""

    input_error: UserError | None = None

    def _handle_exception(self, error: Exception) -> None:
        if isinstance(error, UserError):
            if self.input_error is None:
                self.input_error = error
            # panic() with nothing to show: close at once, as a crash does, minus the traceback
            # (a polite exit() would wait for a screen that is mid-render and cannot finish).
            self.panic()
            # A headless run (--screenshot, tests) waits on this event to stop waiting for
            # the screen; Textual sets it for a crash too.
            event = getattr(self, "_exception_event", None)
            if event is not None:
                event.set()
            return
        super()._handle_exception(error)

    def raise_input_error(self) -> None:
        """After the app has stopped: raise the bad input it met, if it met any."""
        if self.input_error is not None:
            raise self.input_error


def raise_input_error(app: Any) -> None:
    """:meth:`InputErrorExit.raise_input_error` for any app (test doubles have none)."""
    error = getattr(app, "input_error", None)
    if isinstance(error, UserError):
        raise error
