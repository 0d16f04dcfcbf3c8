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

This module is where every reader and writer imports the vocabulary from, and where a line is
decoded (:func:`from_dict`). The records live in three modules beneath it: the header and the
base event in :mod:`tracer.trace.event_base`, the supporting records in
:mod:`tracer.trace.event_records`, the steps in :mod:`tracer.trace.event_steps`.
"""

from __future__ import annotations

import dataclasses

from tracer.trace.event_base import (
    END_REASONS,
    FORMAT,
    STAGES,
    STATIONS,
    VERSION,
    VOLATILE_FIELDS,
    Event,
    Header,
)
from tracer.trace.event_class import lean_dataclass
from tracer.trace.event_code import install
from tracer.trace.event_records import (
    DebugHook,
    HttpAttempt,
    HttpAttemptStarted,
    ImportNote,
    MessageRecorded,
    SubagentEnded,
    SubagentStarted,
    ToolStarted,
    content_after_block,
)
from tracer.trace.event_steps import (
    FollowUpDecided,
    HistoryAppended,
    MaxTurnsChecked,
    PermissionDecided,
    RequestSent,
    ResponseReceived,
    ResultMapped,
    ResultWrapped,
    SessionEnded,
    SessionStarted,
    ToolFinished,
    TurnStarted,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.trace.event_base import EndReason, Stage


@lean_dataclass(frozen=True, slots=True)
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
install(Event, to_dict=False)  # its to_dict writes one for each subclass made elsewhere
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


__all__ = [
    "END_REASONS",
    "FORMAT",
    "KINDS",
    "KNOWN",
    "STAGES",
    "STATIONS",
    "STEP_KINDS",
    "VERSION",
    "VOLATILE_FIELDS",
    "AnyEvent",
    "DebugHook",
    "EndReason",
    "Event",
    "FollowUpDecided",
    "Header",
    "HistoryAppended",
    "HttpAttempt",
    "HttpAttemptStarted",
    "ImportNote",
    "MaxTurnsChecked",
    "MessageRecorded",
    "PermissionDecided",
    "RequestSent",
    "ResponseReceived",
    "ResultMapped",
    "ResultWrapped",
    "SessionEnded",
    "SessionStarted",
    "Stage",
    "SubagentEnded",
    "SubagentStarted",
    "ToolFinished",
    "ToolStarted",
    "TurnStarted",
    "UnknownEvent",
    "content_after_block",
    "from_dict",
]


def __getattr__(name: str) -> Any:
    """``Stage`` and ``EndReason``, the two ``typing.Literal`` aliases, made on first use (see
    :func:`tracer.trace.event_base.__getattr__`)."""
    if name not in ("Stage", "EndReason"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tracer.trace import event_base

    return getattr(event_base, name)
