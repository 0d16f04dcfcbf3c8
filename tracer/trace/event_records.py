"""The trace's supporting records: what the steps of the journey point at.

A ``message`` is written once, with its uuid, and every later step refers to it; a
``debug_hook`` is one of chapter 12's ``console.log`` lines; ``tool_start`` and the HTTP attempts
time what a step waited for; ``import_note`` says what an import could not know;
``subagent_start`` and ``subagent_end`` bracket a nested loop. All are re-exported by
:mod:`tracer.trace.events`, which is where readers import them from.
"""

from __future__ import annotations

from tracer.trace.event_base import Event
from tracer.trace.event_class import frozen_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal


@frozen_event
class MessageRecorded(Event):
    """One internal message, written once. Later events refer to it by ``uuid``.

    Mirrors Claude Code's internal message objects: ``type`` is ``user``, ``assistant`` or
    ``attachment``. Assistant messages hold one content block each (a streamed response becomes one
    message per block, all with the same ``message_id``).
    """

    kind: ClassVar[str] = "message"
    uuid: str
    type: Literal["user", "assistant", "attachment"]
    content: Any = None
    """The API content: a string or a list of blocks (``None`` for attachments)."""
    attachment: dict[str, Any] | None = None
    message_id: str | None = None
    """The API message id an assistant fragment came from."""
    is_meta: bool | None = None
    origin: str | None = None
    """Why the message exists: ``prompt``, ``attachment``, ``response``, ``tool_result``,
    ``synthetic`` (an error result or API error the loop made up)."""
    tool_use_result: Any = None
    """The tool's raw output, kept beside the message and never sent to the model."""
    tool_use_result_seq: int | None = None
    """When set, ``tool_use_result`` is the ``output`` of the ``tool_run`` event with this
    ``seq`` (written once, there). :class:`TraceReader` fills it in when it decodes the event."""
    block_seq: int | None = None
    """When set, the first content block is the ``block`` of the ``mapping`` event with this
    ``seq`` (written once, there) and ``content`` in the file holds only the blocks after it.
    :class:`TraceReader` puts the block back when it decodes the event."""
    source_tool_assistant_uuid: str | None = None
    timestamp: str | None = None


def content_after_block(content: Any) -> list[Any] | None:
    """What a message with ``block_seq`` writes as its ``content``: the blocks after the first,
    which its ``mapping`` step holds (``None`` when nothing follows it)."""
    return content[1:] or None if isinstance(content, list) else None  # a slice: a new list


@frozen_event
class DebugHook(Event):
    """One of the chapter's three ``console.log`` hooks, with the exact line it prints."""

    kind: ClassVar[str] = "debug_hook"
    hook: Literal["tool_result", "loop_turn", "needs_follow_up"]
    line: str
    tracer_only: bool | None = None
    """Set on a ``Tool result`` line that Claude Code 2.1.88 would not print: that result never
    passes through ``addToolResult`` there (a refused input, an unknown tool, a refused
    permission, a thrown error such as a non-zero exit, an interruption). tracer prints it anyway
    so every result can be compared; readers and ``tracer hooks`` mark it."""


@frozen_event
class ToolStarted(Event):
    """A tool call began running. Its finish is the ``tool_run`` step with the same id."""

    kind: ClassVar[str] = "tool_start"
    tool_use_id: str
    tool: str
    batch: int
    """Tool calls with the same batch number ran at the same time."""
    concurrent: bool = False


@frozen_event
class HttpAttemptStarted(Event):
    """An HTTP attempt behind a request went out. Written as it begins, for every attempt, so a
    trace that stops mid-request (a killed recorder, a server that never answers) shows what
    was in flight and since when. How it ended is the ``http_attempt`` with the same numbers
    (written only for retries and failures) or else the ``response`` step."""

    kind: ClassVar[str] = "http_attempt_start"
    request_index: int
    attempt: int
    timeout: float | None = None
    """Seconds the attempt may wait for the answer or between two pieces of it."""
    streaming: bool | None = None
    """``False`` on the plain (non-streaming) request sent after a stream broke, as Claude Code
    2.1.88's ``executeNonStreamingRequest`` sends it; left out on a streamed attempt."""


@frozen_event
class HttpAttempt(Event):
    """How one HTTP attempt behind a request ended, written only when a request needed more than
    one (the SDK retries 429 and 5xx answers on its own, this tool a cut stream) or failed."""

    kind: ClassVar[str] = "http_attempt"
    request_index: int
    attempt: int
    status: int | None = None
    error: str | None = None


@frozen_event
class ImportNote(Event):
    """Something an import knows that no step kind carries: a compaction, a subagent run, a side
    call to another model. Not a step; the views that know it show it beside the steps."""

    kind: ClassVar[str] = "import_note"
    topic: str
    text: str
    tool_use_id: str | None = None
    data: dict[str, Any] | None = None


@frozen_event
class SubagentStarted(Event):
    """A nested loop begins: a subagent run inside one ``Task``/``Agent`` tool call.

    A subagent is the same loop again, with its own prompt, history and turn count, whose tool
    results go back to *its own* model; only its final answer becomes the parent's tool result.
    Every event between this record and the matching :class:`SubagentEnded` (same ``loop``)
    belongs to the nested loop: its turns count from 1, and its first request shares nothing with
    the parent's (``prefix_len`` 0), nor does the parent's next request with it, so a reader that
    skips these two kinds still rebuilds every request. The parent's ``tool_run`` for the call
    follows the end record. Nested loops can nest again. Imports write them (Claude Code keeps
    sidechains inline before 2.0 and in ``agent-<id>.jsonl`` files since).
    """

    kind: ClassVar[str] = "subagent_start"
    loop: str
    """This nested loop's id (the subagent's ``agentId`` when known)."""
    tool_use_id: str
    """The parent's ``Task``/``Agent`` call that runs it."""
    depth: int = 1
    """1 inside the main loop, 2 inside a subagent of a subagent, ..."""
    prompt: str | None = None
    source: str | None = None
    """Where the import found it: ``inline`` (sidechain records) or the agent file's path."""


@frozen_event
class SubagentEnded(Event):
    """The nested loop opened by the :class:`SubagentStarted` with the same ``loop`` is over."""

    kind: ClassVar[str] = "subagent_end"
    loop: str
    tool_use_id: str
    depth: int = 1
    turn_count: int = 0
    """How many turns the nested loop ran."""
