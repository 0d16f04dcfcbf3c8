"""Compaction and a cleared context in a transcript's journey: the history replaced.

When the context grows too long (or on ``/compact``), Claude Code compacts it: the history is
replaced by a summary (since 2.0 after a ``system``/``compact_boundary`` record; in 1.0.x the
summary is a root record of its own), and the next request is **resent** from that summary on.
``/clear`` and plan mode's "clear context" go further: a new conversation starts in the same
file, and its first request holds nothing of the one before.
:func:`~tracer.importers.claude_code.transcript.split_at_compactions` cuts a run of messages at each
:class:`~tracer.importers.claude_code.transcript.Boundary`; :func:`compactions` writes each one as
an ``import_note`` (``compaction`` or ``context_cleared``) that replaces the builder's internal
list, so the next ``request`` starts afresh.
"""

from __future__ import annotations

from tracer.importers.builder import TraceBuilder
from tracer.importers.claude_code.transcript import Boundary
from tracer.model.internal_messages import Message

#: Why a loop that asked for tools has no next request: the context was cleared first.
CLEARED = (
    "the context was cleared (/clear, or plan mode's clear context) before the next request: "
    "a new conversation follows"
)


def compactions(b: TraceBuilder, segments: list[tuple[Boundary | None, list[Message]]]) -> None:
    """Write each segment (a boundary and the messages after it) as the history replaced
    (``b.reset``), then put the rest of its messages on the list as ordinary history."""
    for boundary, messages in segments:
        data = {k: v for k, v in (boundary.data if boundary else {}).items() if v is not None}
        # What the boundary put in place: for a compaction the summary and the meta messages and
        # attachments that follow it; the first real prompt or response after them is ordinary
        # history again.
        cut = next(
            (
                k
                for k, m in enumerate(messages)
                if m.type == "assistant" or (m.origin == "prompt" and not m.is_meta)
            ),
            len(messages),
        )
        if data.get("cleared"):
            # A new root: nothing of the history before is sent again.
            b.reset(
                messages[:cut],
                "a new conversation in the same file: the context was cleared (/clear, or "
                "plan mode's clear context), and the next request starts from nothing",
                data,
                topic="context_cleared",
            )
        else:
            b.reset(
                messages[:cut],
                f"compaction ({data.get('trigger', 'unknown')}): the history "
                f"was replaced by its summary",
                data,
            )
        b.extend(messages[cut:])
