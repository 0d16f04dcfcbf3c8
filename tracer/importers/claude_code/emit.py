"""An import's whole output: the header's source, every step of the journey, then the count check.

:func:`header_source` says in the trace's header where the session came from, what a rebuilt
request lacks (:data:`NOTES`) and what was skipped; :func:`start_epoch` dates it.

:func:`emit_all` runs :func:`tracer.importers.claude_code.journey.emit_transcript` while counting
what goes by (:class:`~tracer.importers.claude_code.counts.Tally`), then checks those counts against
every tool block of the source (:mod:`tracer.importers.claude_code.counts`) and writes the result as
an ``import_note`` just before the trace's last step (:class:`EndLast` holds that step back), and as
a line of the summary (:func:`describe_counts`). ``import claude-code`` and ``--follow`` both emit
this way.
"""

from __future__ import annotations

from collections.abc import Callable

from tracer.importers.builder import TraceBuilder
from tracer.importers.claude_code.agent_files import read_records, session_agent_files
from tracer.importers.claude_code.counts import COUNTED_KINDS, Tally, check_counts, session_blocks
from tracer.importers.claude_code.journey import emit_transcript
from tracer.importers.claude_code.transcript import Transcript
from tracer.importers.jsonl import Record
from tracer.importers.output import epoch_of
from tracer.model.internal_messages import Message
from tracer.trace.events import Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


#: What every imported trace's header says about itself: what a request rebuilt from the
#: transcript lacks, and how the import counts what Claude Code counts otherwise.
NOTES = (
    "Claude Code does not log its requests: each one is rebuilt from the transcript with only "
    "model and messages (no system prompt, tools or max_tokens), so a request's bytes and sha256 "
    "describe that rebuilt body, not what was sent.",
    "The content blocks of one response (one message.id) are merged; its usage is the last "
    "record's, counted once.",
    "Turns are numbered across the whole session; Claude Code restarts its count at each prompt.",
    "Permission steps appear only where the user refused a tool; tool start times are not logged.",
)


def header_source(t: Transcript) -> dict[str, Any]:
    """The trace header's ``source``: where the session came from and what was left out."""
    return {**t.source, "notes": list(NOTES), "skipped": dict(t.report.skipped)}


def start_epoch(t: Transcript) -> float | None:
    """When the session began: its first dated message."""
    return next(
        (
            e
            for m in t.before + [r.messages[0] for r in t.responses]
            if isinstance(m, Message) and (e := epoch_of(m.timestamp)) is not None
        ),
        None,
    )


def emit_all(t: Transcript, emit: Callable[[Event], Any]) -> TraceBuilder:
    """Every step, then the count check (as a note just before the last step). ``emit`` is
    best a function or a bound method (``writer.write``, not the writer): see
    :meth:`EndLast.pass_on`."""
    tally = Tally()
    last = EndLast(emit, tally)
    b = emit_transcript(t, last.pass_on)
    files = _agent_files(t)
    why = {f"{t.path}:{line}": text for line, text in t.left_out.items()}
    counts = check_counts(session_blocks(t.path, t.records, files), tally, 1 + len(files), why)
    last.passing = True
    b.note("counts", describe_counts(counts), data=counts)
    last.release()
    t.report.notes.append(describe_counts(counts))
    if counts["not_in_trace"]:
        t.report.count("tool blocks not in the trace", counts["not_in_trace"])
    return b


def _agent_files(t: Transcript) -> list[tuple[str, list[Record]]]:
    """The session's agent files with their records: read again here unless already loaded,
    so the count check sees the files the importer did not follow too."""
    loaded: dict[str, list[Record]] = {}
    stack = list(t.children.values())
    while stack:
        child = stack.pop()
        if not child.source.get("inline"):
            loaded[child.path] = child.records
        stack += child.children.values()
    return [
        (f, loaded[f] if f in loaded else read_records(f))
        for f in session_agent_files(t.path, t.source.get("session_id"))
    ]


def describe_counts(counts: dict[str, Any]) -> str:
    """The count check's line (:func:`~tracer.importers.claude_code.counts.check_counts`): the
    totals, then each block not in the trace (with its line), and why."""
    files = counts["source_files"]
    text = (
        f"count check: {counts['source_tool_use']} tool_use and "
        f"{counts['source_tool_result']} tool_result blocks in the source ("
        f"{'the file' if files == 1 else f'the file and {files - 1} agent file(s)'}, progress "
        f"records included); {counts['trace_tool_calls']} tool calls and "
        f"{counts['trace_tool_runs']} results in the trace"
    )
    gaps = [f"{m['kind']} {m['id']} ({m['record']}, {m['where']})" for m in counts["missing"][:10]]
    if counts["not_in_trace"] > len(gaps):
        gaps.append(f"{counts['not_in_trace'] - len(gaps)} more")
    wrong = [
        f"{m['kind']} {m['id']} ({m['where']}) ran in {m['found_in'] or 'the main loop'}, "
        f"not in {m['expected_in'] or 'the main loop'}"
        for m in counts["misplaced"][:10]
    ]
    out = text + ("; nothing missing" if not gaps and not wrong else "")
    if gaps:
        out += "; not in the trace: " + ", ".join(gaps)
        reasons = list(dict.fromkeys(m["why"] for m in counts["missing"][:10] if m.get("why")))
        if reasons:
            out += " (left out: " + "; ".join(reasons) + ")"
    if wrong:
        out += "; in the wrong loop: " + ", ".join(wrong)
    if counts.get("answers_before_the_file"):
        out += (
            f"; {counts['answers_before_the_file']} tool_result(s) answer a call made before "
            "this file begins (in the trace as messages, with no tool_run of their own)"
        )
    if counts["calls_without_result"]:
        out += f"; {counts['calls_without_result']} call(s) whose result was never written"
    return out


_WATCHED = (COUNTED_KINDS - {"message"}) | {"terminal"}
"""The kinds :meth:`EndLast.pass_on` does more with than pass them on. Messages only once a note
says the file lacks a conversation's start (:attr:`Tally.history`): until then the tally has
nothing to look for in them (a session's messages are a sixth of its events or more)."""


class EndLast:
    """Passes events on, holding each ``terminal`` back until the next event: so a note written
    once everything is emitted (the count check) still comes before the trace's last step.
    Each event is counted in ``tally`` as it arrives (one call per event, not a chain of
    wrappers: an import sends thousands through here); a held ``terminal`` counts for nothing."""

    def __init__(self, emit: Callable[[Event], Any], tally: Tally | None = None) -> None:
        self.emit = emit
        self.tally = tally
        self.held: Event | None = None
        self.passing = False
        """Let events through without releasing the held one."""
        self.watched = _WATCHED

    def pass_on(self, event: Event) -> Any:
        """Count ``event``, then pass it on (or hold it, if it is a ``terminal``)."""
        kind = event.kind
        if kind not in self.watched and self.held is None:
            return self.emit(event)  # most events: nothing to count, nothing held
        tally = self.tally
        if kind in COUNTED_KINDS and tally is not None:
            tally.see(event)
            if kind == "import_note" and tally.history:
                self.watched = _WATCHED | {"message"}  # the messages now carry what it looks for
        if self.held is not None and not self.passing:
            self.release()
        if kind == "terminal" and not self.passing:
            self.held = event
            return event
        return self.emit(event)

    def release(self) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            self.emit(held)

    # Calling it is passing an event on. emit_all hands the journey the bound method rather
    # than the instance: Python calls a bound method in the frame loop it is already in, but an
    # instance through its type's __call__ slot, a C-level call that costs as much as the
    # method's body (an import sends every event through here).
    __call__ = pass_on
