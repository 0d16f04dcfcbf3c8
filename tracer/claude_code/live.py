"""The trace of a Claude Code session, written while the session runs.

Each finished exchange on the wire goes through the API-log importer's own walk
(:func:`~tracer.importers.api_log.loop.emit_log`) again, over every pair so far; the events
that can no longer change are appended to the trace, so ``tracer replay --follow`` shows the
session as it happens. What the walk says last (the loop's ending) waits for the session's end:
until then, the next request may still carry the tool results of the last answer.

Which requests are the loop's: those with ``tools`` and more than one output token, of the same
conversation as the first one (:func:`~tracer.importers.api_log.threads.thread_key`); the rest (side
requests, a subagent's loop) become ``side_call`` notes where they happened, as in an import.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.claude_code.side import is_loop_request
from tracer.errors import UserError
from tracer.importers.api_log.loop import emit_log
from tracer.importers.api_log.sse import parse_response
from tracer.importers.api_log.threads import pairs_of, thread_key
from tracer.importers.output import ImportReport
from tracer.trace.events import Event, Header, SessionEnded
from tracer.trace.writer import TraceWriter

NOTES = (
    "Recorded at the wire by tracer record --claude-code: each request is what Claude Code sent.",
    "Headers (and with them the API key) are never copied; secrets are redacted by value.",
    "Each tool_run's output is the tool_result content Claude Code sent.",
    "Side requests (count_tokens, probes, helper calls, other threads) are notes, not turns.",
)


class LiveTrace:
    """Appends a session's settled events to ``output`` as pairs arrive (:meth:`update`)."""

    def __init__(self, output: Path, source: dict[str, Any]) -> None:
        self.output = output
        created = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        header = Header(
            created=created,
            source={"kind": "import", "format": "api-log", "notes": list(NOTES), **source},
            tracer_version=__version__,
            paths=None,
        )
        self._header = header
        self._writer = TraceWriter(output, header, keep_time=True, flush=True)
        self._written: list[dict[str, Any]] = []
        self.report = ImportReport(source=str(output))
        self.problem: str | None = None
        self.ending: str | None = None
        self.cut: str | None = None

    def update(self, pairs: list[dict[str, Any]], *, final: bool = False) -> None:
        """Write what the pairs so far settle (everything, when ``final``)."""
        if self.problem is not None:
            return
        events = walk(pairs, self.output)
        if events and not final and events[-1].kind == "terminal":
            events = events[:-1]
        if not final and _last_attempt_failed(pairs):
            # It may be sent again (a retry, or 2.1.88's unstreamed fallback after a cut):
            # then it is one turn with several attempts, so its turn waits.
            starts = [i for i, e in enumerate(events) if e.kind == "turn_start"]
            events = events[: starts[-1]] if starts else []
        if final and events and self.ending == "max_turns":
            last = events[-1]
            if isinstance(last, SessionEnded) and last.reason == "aborted_tools":
                events[-1] = replace(last, reason="max_turns", error=None)
        if final and events and self.cut and isinstance(last := events[-1], SessionEnded):
            events[-1] = replace(last, error=self.cut)
        old = len(self._written)
        if [e.to_dict() for e in events[:old]] != self._written:
            # The walk changed its mind about something already written: stop following
            # rather than write a trace that says two things; the end writes it whole.
            self.problem = "an event already written changed; the trace is written at the end"
            return
        for event in events[old:]:
            self._writer.write(event)
            self._written.append(event.to_dict())

    def close(
        self, pairs: list[dict[str, Any]], ending: str | None = None, cut: str | None = None
    ) -> int:
        """Write the rest, close the file; the number of the loop's requests.

        ``ending`` is how Claude Code itself said the session ended (:func:`claude_ending`):
        the wire cannot tell a session stopped by ``--max-turns`` from one cut short, so the
        last answer's unsent tool calls end it as ``max_turns`` when Claude Code said so.
        ``cut`` says why the recorder killed it (a stop signal, the time limit), as the
        terminal event's ``error``."""
        self.ending, self.cut = ending, cut
        self.update(pairs, final=True)
        if cut is not None and not self._written and self.problem is None:
            # Stopped before Claude Code's first request: the trace still ends, as a scripted
            # recording stopped before its first step does (tracer.record.recorder), so that
            # it opens everywhere rather than as a header that validate refuses.
            ended = SessionEnded(
                reason="aborted_streaming", turn_count=0, message_count=0, error=cut
            )
            self._writer.write(ended)
            self._written.append(ended.to_dict())
        self._writer.close()
        if self.problem is not None:
            self._written = []
            self.problem = None
            self._writer = TraceWriter(
                self.output, self._header, keep_time=True, flush=False, atomic=True
            )
            self.update(pairs, final=True)
            self._writer.close()
        return sum(1 for e in self._written if e.get("kind") == "request")


def walk(pairs: list[dict[str, Any]], output: Path) -> list[Event]:
    """The importer's events for the pairs so far (none until the loop's first request)."""
    report = ImportReport(source=str(output))
    numbered = pairs_of(list(enumerate(pairs, start=1)), report)
    loop = [(line, req) for line, req, _ in numbered if is_loop_request(req["body"])]
    if not loop:
        return []
    key = thread_key(loop[0][1]["body"])
    main = {line for line, req in loop if thread_key(req["body"]) == key}
    events: list[Event] = []
    emit_log(output, numbered, main, events.append, report)
    return events


def _last_attempt_failed(pairs: list[dict[str, Any]]) -> bool:
    """Did the newest request of the loop get no whole answer (an HTTP error, a cut stream)?"""
    for pair in reversed(pairs):
        request, response = pair.get("request") or {}, pair.get("response") or {}
        if is_loop_request(request.get("body")):
            return (
                response.get("status_code") != 200
                or bool(response.get("error"))
                or parse_response(response) is None
            )
    return False


def claude_ending(stdout: bytes) -> str | None:
    """How ``claude -p --output-format stream-json`` says the session ended: its last
    ``result`` line's ``subtype`` (``error_max_turns`` → ``max_turns``), else ``None``."""
    for line in reversed(stdout.decode("utf-8", "replace").splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return "max_turns" if data.get("subtype") == "error_max_turns" else None
    return None


def no_loop_error(stderr: str) -> UserError:
    """What to say when Claude Code sent no request of its loop at all."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    why = lines[-1][:300] if lines else "it printed nothing on stderr"
    return UserError(f"claude sent no request of its loop ({why})")
