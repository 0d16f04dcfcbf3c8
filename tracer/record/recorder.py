"""The recording's ``emit`` callback, and the promise that every trace ends with ``terminal``.

Every event the loop emits goes through a :class:`Recorder` on its way to the
:class:`~tracer.trace.writer.TraceWriter`, which stamps it (``seq``, ``t``) and redacts it. On
the way the recorder does what only the edge can do: with ``--debug`` it prints the chapter's
``[DEBUG]`` lines to stderr as they happen; it copies every result that was persisted for being
too large (and a command's rolled-over output) beside the trace, so the trace still points at
something once the session's temporary folders are gone; and when a stop signal cut the turn
short it says which one in the ``terminal`` event (and which total, when one ended it).

:func:`write_session` runs a session into a trace: whatever happens (Ctrl-C, a stop signal, a
bug of ours), the trace ends with a ``terminal`` event, so it reads back as a whole session.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from tracer.interrupts import Interrupts
from tracer.text.printable import printable
from tracer.trace.events import (
    DebugHook,
    Event,
    Header,
    ResultMapped,
    SessionEnded,
    ToolFinished,
)
from tracer.trace.hooks import shown_line
from tracer.trace.redact import Redactor
from tracer.trace.writer import TraceWriter


@dataclass
class Recorder:
    """The ``emit`` callback of a recording: writes, echoes hooks, keeps persisted files."""

    writer: TraceWriter
    debug_stream: TextIO | None = None
    also: list[Callable[[Event], Any]] = field(default_factory=list)
    ended: bool = False
    interrupts: Interrupts | None = None
    limit_reached: Callable[[], str | None] | None = None
    """Why the session had to stop because a total was passed (:mod:`tracer.agent.totals`)."""

    def __call__(self, event: Event) -> Event:
        if isinstance(event, ResultMapped) and event.persisted:
            event = replace(event, persisted=self._keep(event.persisted))
        if (
            isinstance(event, ToolFinished)
            and isinstance(event.output, dict)
            and event.output.get("persistedOutputPath")
        ):
            event = replace(event, output=self._keep_output(event.output))
        if (
            isinstance(event, SessionEnded)
            and not event.error
            and (stop := self._stop()) is not None
        ):
            # The loop ends a turn cut short by any stop signal as aborted_tools; say which.
            event = replace(event, error=stop)
        if isinstance(event, SessionEnded) and not event.error and self.limit_reached:
            event = replace(event, error=self.limit_reached())
        stamped = self.writer.write(event)
        if isinstance(event, DebugHook) and self.debug_stream is not None:
            line = printable(self.writer.redact(shown_line(event)))  # it quotes the model
            print(line, file=self.debug_stream, flush=True)
        if isinstance(event, SessionEnded):
            self.ended = True
        for callback in self.also:
            callback(stamped)
        return stamped

    def _stop(self) -> str | None:
        """Which stop signal cut the session short, if one did."""
        if self.interrupts is None or self.interrupts.received is None:
            return None
        return self.interrupts.reason

    def _keep(self, persisted: dict[str, Any]) -> dict[str, Any]:
        source = Path(persisted["path"])
        folder = self._folder()
        # Tool output was redacted before it was persisted; the copy is checked again anyway.
        self.writer.redact.copy_file(source, folder / source.name)
        return {**persisted, "saved": f"{folder.name}/{source.name}"}

    def _keep_output(self, output: dict[str, Any]) -> dict[str, Any]:
        """A command's rolled-over stdout, copied beside the trace (redacted on the way: it was
        written by the command, never seen whole by the redactor)."""
        source = Path(output["persistedOutputPath"])
        folder = self._folder()
        try:
            self.writer.redact.copy_file(source, folder / source.name)
        except OSError:
            return output
        return {**output, "persistedOutputSaved": f"{folder.name}/{source.name}"}

    def _folder(self) -> Path:
        folder = self.writer.path.with_name(self.writer.path.stem + ".tool-results")
        folder.mkdir(parents=True, exist_ok=True)
        return folder


def write_session(
    session: Any,
    output: Path,
    header: Header,
    debug: bool,
    also: list[Callable[[Event], Any]],
    redact: Redactor,
    interrupts: Interrupts,
) -> None:
    """Run ``session`` into a trace at ``output``; the trace ends with ``terminal`` whatever
    happens."""
    with TraceWriter(output, header, redact=redact) as writer:
        recorder = Recorder(
            writer,
            sys.stderr if debug else None,
            also,
            interrupts=interrupts,
            limit_reached=lambda: getattr(getattr(session, "ctx", None), "stopped", None),
        )
        try:
            recorder(session.start_event())
            session.run(recorder)
        except KeyboardInterrupt:
            if not recorder.ended:
                recorder(
                    SessionEnded(
                        reason="aborted_streaming",
                        turn_count=session.turn,
                        message_count=session.message_count,
                        error=interrupts.reason,
                    )
                )
        except Exception as exc:
            # A bug of ours must still leave a trace that ends validly; then let it surface.
            if not recorder.ended:
                recorder(
                    SessionEnded(
                        reason="model_error",
                        turn_count=session.turn,
                        message_count=session.message_count,
                        error=f"tracer failed: {type(exc).__name__}: {exc}",
                    )
                )
            raise
