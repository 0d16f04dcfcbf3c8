"""The steps of the journey, one record each: from ``session_start`` to ``terminal``.

Each carries a ``stage`` (:data:`~tracer.trace.event_base.STAGES`); the four stations of
chapter 12 (翻译, 包装, 追加, 重新发送) are ``mapping`` (:class:`ResultMapped`), ``wrapping``
(:class:`ResultWrapped`), ``appending`` (:class:`HistoryAppended`) and ``resending``
(:class:`RequestSent`). All are re-exported by :mod:`tracer.trace.events`, which is where
readers import them from.
"""

from __future__ import annotations

from tracer.trace.event_base import Event
from tracer.trace.event_class import frozen_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    from tracer.trace.event_base import EndReason


@frozen_event
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


@frozen_event
class TurnStarted(Event):
    """The top of ``while True``: the state the turn begins with."""

    kind: ClassVar[str] = "turn_start"
    stage: ClassVar[str | None] = "turn_start"
    message_count: int
    """``len(state.messages)``: the internal list the chapter's ``Loop turn`` hook counts."""


@frozen_event
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
    cache_control: dict[str, Any] | None = None
    """The prompt-cache breakpoint put on the last block of the last message on its way out
    (2.1.88's ``addCacheBreakpoints``), a request-only mark the stored messages never carry;
    absent in traces recorded before tracer placed it, whose bodies had none."""


@frozen_event
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


@frozen_event
class FollowUpDecided(Event):
    """``needs_follow_up``: true when the response holds any ``tool_use`` block."""

    kind: ClassVar[str] = "follow_up"
    stage: ClassVar[str | None] = "follow_up"
    needs_follow_up: bool
    tool_use_ids: list[str]
    stop_reason: str | None = None
    forced: bool | None = None
    """Set when a fault scenario forced the decision."""


@frozen_event
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


@frozen_event
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


@frozen_event
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


@frozen_event
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
    message outside ``addToolResult`` (:mod:`tracer.chapter.error_paths`); tracer wraps it here
    too."""


@frozen_event
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


@frozen_event
class MaxTurnsChecked(Event):
    """The strict check ``next_turn_count > max_turns``, before the next State is built."""

    kind: ClassVar[str] = "max_turns_check"
    stage: ClassVar[str | None] = "max_turns_check"
    next_turn_count: int
    exceeded: bool
    max_turns: int | None = None


@frozen_event
class SessionEnded(Event):
    """The loop returned. ``reason`` names why."""

    kind: ClassVar[str] = "terminal"
    stage: ClassVar[str | None] = "terminal"
    reason: EndReason
    turn_count: int
    message_count: int
    error: str | None = None
