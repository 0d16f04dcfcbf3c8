"""How an internal message is written to the trace: once, whole, without repeating itself.

Every message the loop makes (prompt, attachments, one assistant message per block, each wrapped
tool result, made-up results and notices) becomes one ``message`` event when it is made, the way
Claude Code's ``queryLoop`` yields each message to its caller as soon as it exists. Later events
(a request, a wrapping step) name the message by its uuid instead of copying it.

A wrapped tool result would otherwise say everything twice: its raw output is already the
``output`` of its ``tool_run`` event, and its ``tool_result`` block the ``block`` of its
``mapping`` event. :class:`ResultRefs` says where those are, and :func:`message_event` then
writes only what is new. The trace reader puts both back, so whoever reads a trace sees whole
messages.

The live loop (:mod:`tracer.agent.loop`) and the importers (:mod:`tracer.importers.steps`) write
this same record, so it lives here, in the trace layer below both: an import loads nothing of the
agent's.
"""

from __future__ import annotations

from tracer.model.internal_messages import Message
from tracer.trace.event_class import lean_dataclass
from tracer.trace.events import MessageRecorded, content_after_block


@lean_dataclass(frozen=True, slots=True)
class ResultRefs:
    """Where a result's pieces were written: the ``tool_run`` (raw output) and ``mapping`` (block)
    events, by ``seq``. Unknown when the ``emit`` callback does not return stamped events."""

    raw: int | None = None
    block: int | None = None


def message_event(
    message: Message,
    turn: int,
    tool_use_result_seq: int | None = None,
    block_seq: int | None = None,
    *,
    seq: int = 0,
    t: float = 0.0,
    timestamp: str | None = None,
) -> MessageRecorded:
    """The trace record of an internal message (written once; later events use its uuid).

    With ``tool_use_result_seq`` the raw output is not repeated: it is the ``output`` of that
    ``tool_run`` event; with ``block_seq`` the first content block is the ``block`` of that
    ``mapping`` event and only the blocks after it are written. The live loop leaves the
    message's clock time out (the event's ``t`` says when it was made); an import, which numbers
    and dates its own events, passes ``seq``, ``t`` and the ``timestamp`` the source logged.
    """
    return MessageRecorded.new(
        seq=seq,
        turn=turn,
        t=t,
        uuid=message.uuid,
        type=message.type,
        content=content_after_block(message.content) if block_seq else message.content,
        attachment=message.attachment,
        message_id=message.message_id,
        is_meta=message.is_meta or None,
        origin=message.origin,
        tool_use_result=None if tool_use_result_seq else message.tool_use_result,
        tool_use_result_seq=tool_use_result_seq,
        block_seq=block_seq,
        source_tool_assistant_uuid=message.source_tool_assistant_uuid,
        timestamp=timestamp,
    )
