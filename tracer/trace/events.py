"""The trace vocabulary: one typed record per event kind.

A trace is a JSON-lines file. Line 1 is a :class:`Header`; every later line is one event, written
once and never rewritten. Each event carries ``kind`` (which record it is), ``seq`` (its position,
from 1), ``turn`` (the loop turn it belongs to) and ``t`` (seconds since the session started).

Events that are a *step* of the journey also carry a ``stage``: the four steps of chapter 12's
结果的旅途 (翻译, 包装, 追加, 重新发送) use exactly ``mapping``, ``wrapping``, ``appending`` and
``resending``; the loop adds ``session``,
``turn_start``, ``response``, ``follow_up``, ``permission``, ``tool_run``, ``max_turns_check`` and
``terminal``. Other kinds (``message``, ``debug_hook``, ``tool_start``, ``http_attempt_start``,
``http_attempt``) are supporting records that steps point at; ``subagent_start``/``subagent_end``
bracket a nested loop (a subagent run inside one tool call, see :class:`SubagentStarted`).

Messages are written once, as ``message`` events with their uuid; everything later refers to them
by uuid, so a trace grows linearly with the conversation even though every request resends all of
it. Readers skip kinds they do not know (:class:`UnknownEvent`); the header's ``version`` picks the
parser.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tracer.trace.event_code import compile_to_dict, install

FORMAT = "tracer"
VERSION = 1

#: Fields whose values change from run to run of the same scenario. Comparisons drop them, and the
#: header lists them so that other tools can too.
VOLATILE_FIELDS = ("t", "created", "timestamp", "duration_ms", "latency_ms", "sha256")

STAGES = (
    "session",
    "turn_start",
    "resending",
    "response",
    "follow_up",
    "permission",
    "tool_run",
    "mapping",
    "wrapping",
    "max_turns_check",
    "appending",
    "terminal",
)
"""Every step kind, in the order a turn meets them (query.ts checks max_turns before it builds
the next State, so ``max_turns_check`` comes before ``appending``)."""
STATIONS = ("mapping", "wrapping", "appending", "resending")
"""The four steps of a result's trip (the book's 结果的旅途: 翻译, 包装, 追加, 重新发送)."""

Stage = Literal[
    "session",
    "turn_start",
    "resending",
    "response",
    "follow_up",
    "permission",
    "tool_run",
    "mapping",
    "wrapping",
    "max_turns_check",
    "appending",
    "terminal",
]
EndReason = Literal["completed", "max_turns", "model_error", "aborted_tools", "aborted_streaming"]


@dataclass(frozen=True, slots=True)
class Header:
    """Line 1 of every trace: what the file is and where it came from."""

    created: str
    """ISO-8601 time the recording started (volatile)."""
    source: dict[str, Any]
    """Where the session came from: ``{"kind": "scenario" | "model" | "import", ...}``."""
    tracer_version: str
    chapter: str | None = "ch12"
    paths: dict[str, str] | None = None
    """Temporary paths of the session (``workspace``, ``tool_results``); comparisons replace
    each with ``<name>``, since they differ from run to run."""
    volatile: tuple[str, ...] = VOLATILE_FIELDS
    format: str = FORMAT
    version: int = VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "version": self.version,
            "tracer_version": self.tracer_version,
            "created": self.created,
            "source": self.source,
            "chapter": self.chapter,
            "paths": self.paths,
            "volatile": list(self.volatile),
        }


_TO_DICT: dict[type, Callable[[Any], dict[str, Any]]] = {}
"""``to_dict`` of event classes defined elsewhere (tests); those here get their own, below."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Fields every event shares. Subclasses add their own and fix ``kind``."""

    kind: ClassVar[str] = ""
    stage: ClassVar[str | None] = None
    seq: int = 0
    """Position in the file, from 1; assigned by the writer."""
    turn: int = 0
    """The loop's ``turn_count`` when the event happened (0 before the loop starts)."""
    t: float = 0.0
    """Seconds since the session started (volatile)."""

    def to_dict(self) -> dict[str, Any]:
        """This event as JSON data: ``kind`` and ``stage`` first, ``None`` fields left out."""
        convert = _TO_DICT.get(type(self))
        if convert is None:  # written once per class
            convert = _TO_DICT[type(self)] = compile_to_dict(type(self))
        return convert(self)


# -- supporting records --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
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
    return list(content[1:]) or None if isinstance(content, list) else None


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted(Event):
    """A tool call began running. Its finish is the ``tool_run`` step with the same id."""

    kind: ClassVar[str] = "tool_start"
    tool_use_id: str
    tool: str
    batch: int
    """Tool calls with the same batch number ran at the same time."""
    concurrent: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpAttempt(Event):
    """How one HTTP attempt behind a request ended, written only when a request needed more than
    one (the SDK retries 429 and 5xx answers on its own, this tool a cut stream) or failed."""

    kind: ClassVar[str] = "http_attempt"
    request_index: int
    attempt: int
    status: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportNote(Event):
    """Something an import knows that no step kind carries: a compaction, a subagent run, a side
    call to another model. Not a step; the views that know it show it beside the steps."""

    kind: ClassVar[str] = "import_note"
    topic: str
    text: str
    tool_use_id: str | None = None
    data: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class SubagentEnded(Event):
    """The nested loop opened by the :class:`SubagentStarted` with the same ``loop`` is over."""

    kind: ClassVar[str] = "subagent_end"
    loop: str
    tool_use_id: str
    depth: int = 1
    turn_count: int = 0
    """How many turns the nested loop ran."""


# -- steps ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStarted(Event):
    """The session's set-up: the prompt, the tools and every request parameter but the messages."""

    kind: ClassVar[str] = "session_start"
    stage: ClassVar[str | None] = "session"
    model: str
    prompt: str
    tools: list[str]
    request_params: dict[str, Any]
    """What the loop asked the SDK for: model, max_tokens, system, tools, ..."""
    max_turns: int | None = None
    title: dict[str, str] | None = None
    scenario: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    """The top of ``while True``: the state the turn begins with."""

    kind: ClassVar[str] = "turn_start"
    stage: ClassVar[str | None] = "turn_start"
    message_count: int
    """``len(state.messages)``: the internal list the chapter's ``Loop turn`` hook counts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestSent(Event):
    """Resending: the whole history went to the API again.

    Stored by reference: ``prefix_len`` API messages are the same as request ``prefix_request``'s,
    and ``tail`` lists the rest. Each API message is ``{"role", "parts"}`` where a part is
    ``[uuid, index]`` (one block of that message; ``index`` ``null`` for its whole content).
    """

    kind: ClassVar[str] = "request"
    stage: ClassVar[str | None] = "resending"
    request_index: int
    message_count: int
    """How many API messages the request holds (after normalizing)."""
    internal_count: int
    """How many internal messages they were normalized from."""
    prefix_len: int
    tail: list[dict[str, Any]]
    bytes: int
    """The size of the request body as sent."""
    sha256: str
    prefix_request: int | None = None
    params: dict[str, Any] | None = None
    """The body without ``messages``, as sent; only when it differs from the previous request's."""
    body_keys: list[str] | None = None
    """The body's key order, ``messages`` included; with ``params``."""
    pairing: dict[str, Any] | None = None
    """What ``ensureToolResultPairing`` changed before this request went out: ``added`` (tool_use
    ids given a synthetic ``is_error`` result), ``stripped`` (orphan results removed) and, when
    the loop first sent the request unpatched to show the bare API's answer,
    ``unpatched_request`` (that request's index)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseReceived(Event):
    """The streamed response, and the internal assistant messages it became."""

    kind: ClassVar[str] = "response"
    stage: ClassVar[str | None] = "response"
    request_index: int
    message_id: str
    model: str
    usage: dict[str, Any]
    assistant_uuids: list[str]
    stop_reason: str | None = None
    latency_ms: int | None = None
    attempts: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class FollowUpDecided(Event):
    """``needs_follow_up``: true when the response holds any ``tool_use`` block."""

    kind: ClassVar[str] = "follow_up"
    stage: ClassVar[str | None] = "follow_up"
    needs_follow_up: bool
    tool_use_ids: list[str]
    stop_reason: str | None = None
    forced: bool | None = None
    """Set when a fault scenario forced the decision."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionDecided(Event):
    """Whether a tool call may run, who decided, and any feedback the user typed."""

    kind: ClassVar[str] = "permission"
    stage: ClassVar[str | None] = "permission"
    tool_use_id: str
    tool: str
    decision: Literal["allow", "approve", "reject", "deny"]
    source: Literal["rule", "prompt", "script", "no_terminal", "default"]
    rule: str | None = None
    feedback: str | None = None
    message: str | None = None
    """The text the model gets when the call does not run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFinished(Event):
    """A tool ran (or was refused before running): its input and raw output."""

    kind: ClassVar[str] = "tool_run"
    stage: ClassVar[str | None] = "tool_run"
    tool_use_id: str
    tool: str
    input: Any
    output: Any
    """The raw output, exactly what becomes ``tool_use_result``."""
    is_error: bool = False
    error_kind: str | None = None
    """``input_validation``, ``validate_input``, ``unknown_tool``, ``permission``, ``exception``
    or ``exit_code``."""
    duration_ms: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultMapped(Event):
    """Step ① (翻译, mapping): the raw output became a ``tool_result`` block."""

    kind: ClassVar[str] = "mapping"
    stage: ClassVar[str | None] = "mapping"
    tool_use_id: str
    tool: str
    block: dict[str, Any]
    content_length: int
    """``String(block.content).length``, as the chapter's hook computes it."""
    mapped_length: int
    """The content's size before any persisting, in characters."""
    persisted: dict[str, Any] | None = None
    """``{"path", "size", "threshold"}`` when the output was too large and saved to a file."""
    empty_replaced: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultWrapped(Event):
    """Step ② (包装, wrapping): the block was wrapped in a user message (``create_user_message``,
    inside ``add_tool_result``)."""

    kind: ClassVar[str] = "wrapping"
    stage: ClassVar[str | None] = "wrapping"
    tool_use_id: str
    tool: str
    message_uuid: str
    source_tool_assistant_uuid: str
    feedback: str | None = None
    error_kind: str | None = None
    """The failure this result reports (the ``tool_run``'s ``error_kind``): 2.1.88 builds such a
    message outside ``addToolResult`` (:mod:`tracer.error_paths`); tracer wraps it here too."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryAppended(Event):
    """Step ③ (追加, appending): the next State's history,
    ``[*messages_for_query, *assistant_messages, *tool_results]``. Built only after the max-turns
    check passed, so a turn that ends at the limit has none."""

    kind: ClassVar[str] = "appending"
    stage: ClassVar[str | None] = "appending"
    before_count: int
    after_count: int
    new_uuids: list[str]
    assistant_count: int
    tool_result_count: int
    api_before_count: int
    api_after_count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MaxTurnsChecked(Event):
    """The strict check ``next_turn_count > max_turns``, before the next State is built."""

    kind: ClassVar[str] = "max_turns_check"
    stage: ClassVar[str | None] = "max_turns_check"
    next_turn_count: int
    exceeded: bool
    max_turns: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEnded(Event):
    """The loop returned. ``reason`` names why."""

    kind: ClassVar[str] = "terminal"
    stage: ClassVar[str | None] = "terminal"
    reason: EndReason
    turn_count: int
    message_count: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event of a kind this version does not know; readers keep it and skip it."""

    kind: str
    seq: int
    turn: int
    raw: dict[str, Any]
    stage: str | None = None
    t: float = 0.0


KNOWN: tuple[type[Event], ...] = (
    MessageRecorded,
    DebugHook,
    ToolStarted,
    HttpAttemptStarted,
    HttpAttempt,
    ImportNote,
    SubagentStarted,
    SubagentEnded,
    SessionStarted,
    TurnStarted,
    RequestSent,
    ResponseReceived,
    FollowUpDecided,
    PermissionDecided,
    ToolFinished,
    ResultMapped,
    ResultWrapped,
    HistoryAppended,
    MaxTurnsChecked,
    SessionEnded,
)
for _cls in KNOWN:  # every event an import or a recording writes: see tracer.trace.event_code
    install(_cls)
KINDS: dict[str, type[Event]] = {cls.kind: cls for cls in KNOWN}
STEP_KINDS: dict[str, str] = {cls.kind: cls.stage for cls in KNOWN if cls.stage}

AnyEvent = Event | UnknownEvent


def from_dict(data: dict[str, Any]) -> AnyEvent:
    """Decode one event object. Unknown kinds become :class:`UnknownEvent`.

    Raises ``ValueError`` (with the field's name) when a known kind lacks a required field.
    """
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise ValueError("event has no 'kind'")
    cls = KINDS.get(kind)
    if cls is None:
        return UnknownEvent(
            kind=kind,
            seq=int(data.get("seq", 0)),
            turn=int(data.get("turn", 0)),
            raw=data,
            stage=data.get("stage"),
            t=float(data.get("t", 0.0)),
        )
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {k: v for k, v in data.items() if k in names}
    try:
        return cls(**kwargs)
    except TypeError as exc:
        missing = sorted(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in data
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        )
        detail = f"missing {', '.join(missing)}" if missing else str(exc)
        raise ValueError(f"{kind} event: {detail}") from None
