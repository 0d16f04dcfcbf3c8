"""Turning someone else's log into our journey: the steps every importer emits.

A live recording gets its events from :mod:`tracer.agent.loop` as the loop runs. An import has
only what the source wrote down afterwards (a Claude Code transcript, a wire log), so it replays
the same sequence by hand: for each model call ``turn_start`` and the ``Loop turn`` hook, the
**resending** request (stored by reference, exactly as ``QueryLoop._log_request`` stores it),
``response``, ``follow_up`` and its hook; for each tool result ``tool_run``, **mapping**, the
wrapped message, **wrapping** and the ``Tool result`` hook; then **appending** and the (never
exceeded) max-turns check; finally ``terminal``.

:class:`TraceBuilder` owns the internal message list (``state.messages`` in the loop) and the
request log, so both importers stay about *reading* their format, not about writing ours. What a
source cannot tell us is never made up: no permission step unless the user visibly refused, no
``tool_start`` (nobody logged when a tool started), ``max_turns`` left unset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tracer.hooks import loop_turn_line, needs_follow_up_line, tool_result_line
from tracer.importers.body_hash import BodyHasher
from tracer.importers.normal_cache import NormalCache
from tracer.importers.output import epoch_of
from tracer.messages import Message, content_length, materialize
from tracer.trace.events import (
    DebugHook,
    EndReason,
    Event,
    FollowUpDecided,
    HistoryAppended,
    HttpAttempt,
    ImportNote,
    MaxTurnsChecked,
    MessageRecorded,
    PermissionDecided,
    RequestSent,
    ResponseReceived,
    ResultMapped,
    ResultWrapped,
    SessionEnded,
    ToolFinished,
    TurnStarted,
)
from tracer.trace.requests import encode_body


@dataclass(slots=True)
class ToolResult:
    """One ``tool_result`` block of a source, with everything the three steps need."""

    tool_use_id: str
    tool: str
    input: Any
    block: dict[str, Any]
    message: Message
    """The user message that wrapped it (already holding ``block``)."""
    output: Any
    assistant_uuid: str
    feedback: str | None = None
    duration_ms: int | None = None


REJECTED_PREFIX = "The user doesn't want to proceed with this tool use"


def error_kind(block: dict[str, Any], output: Any) -> str | None:
    """Guess why a result is an error from what the model was told (sources keep no reason)."""
    if not block.get("is_error"):
        return None
    text = block_text(block)
    if output == "User rejected tool use" or text.startswith(REJECTED_PREFIX):
        return "permission"
    if text.startswith("Exit code"):
        return "exit_code"
    if "Sibling tool call errored" in text or "interrupted" in text.lower():
        return "aborted"
    return "tool_error"


def block_text(block: dict[str, Any]) -> str:
    """A tool_result's content as plain text (list content joined)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


class TraceBuilder:
    """Emits the journey's steps for an imported session and keeps its internal message list."""

    def __init__(self, emit: Callable[[Event], Any]) -> None:
        self.emit = emit
        self.turn = 0
        self.messages: list[Message] = []
        self.by_uuid: dict[str, Message] = {}
        self.request_index = 0
        self.events = 0
        self._hasher = BodyHasher()
        self._api_cache: tuple[list[Message], int, list[Any]] | None = None
        self._normal = NormalCache()
        self._prev_api: list[Any] = []
        self._params: dict[str, Any] | None = None
        self._keys: list[str] | None = None
        self._api_count = 0
        self.t = 0.0
        self._origin: float | None = None

    def nested(self) -> TraceBuilder:
        """A builder for a loop run inside this one (a subagent): its own history, turns and
        requests, the same clock and event numbering."""
        inner = TraceBuilder(self.emit)
        inner.events, inner.t, inner._origin = self.events, self.t, self._origin
        inner.request_index = self.request_index  # request numbers stay unique in the trace
        return inner

    def adopt(self, inner: TraceBuilder) -> None:
        """Carry on after a nested loop. The next request shares nothing with the nested loop's
        last one (``prefix_len`` 0), so readers that do not know nesting still rebuild it."""
        self.events, self.t = inner.events, max(self.t, inner.t)
        self.request_index = inner.request_index
        self._prev_api = []
        # Readers carry a request's params forward to the next one, the nested loop's too: the
        # next request says its own again (a subagent often runs on another model).
        self._params, self._keys = None, None

    def at(self, epoch: float | None) -> None:
        """Date the next events: seconds since the session's first dated moment.

        Sources log wall-clock times; a trace's ``t`` counts from the start and never runs
        backwards (side calls and tool results can be logged out of order).
        """
        if epoch is None:
            return
        if self._origin is None:
            self._origin = epoch
        self.t = max(self.t, round(epoch - self._origin, 3))

    def _emit(self, cls: type[Event], **fields: Any) -> Any:
        self.events += 1
        # Numbered here as the writer will number it, so the writer need not copy the event.
        return self.emit(cls(seq=self.events, turn=self.turn, t=self.t, **fields))

    def note(self, topic: str, text: str, **fields: Any) -> None:
        self._emit(ImportNote, topic=topic, text=text, **fields)

    def record(
        self, *messages: Message, raw_seq: int | None = None, block_seq: int | None = None
    ) -> None:
        """Write each message once (later events refer to it by uuid).

        With ``raw_seq`` the raw tool output is not repeated: it is that ``tool_run``'s output;
        with ``block_seq`` neither is the first content block: it is that ``mapping``'s block
        (the live loop writes a tool result's message the same way: ``message_event``).
        """
        for m in messages:
            self.by_uuid[m.uuid] = m
            self.at(epoch_of(m.timestamp))
            self._emit(
                MessageRecorded,
                uuid=m.uuid,
                type=m.type,
                content=_rest(m.content) if block_seq else m.content,
                attachment=m.attachment,
                message_id=m.message_id,
                is_meta=m.is_meta or None,
                origin=m.origin,
                tool_use_result=None if raw_seq else m.tool_use_result,
                tool_use_result_seq=raw_seq,
                block_seq=block_seq,
                source_tool_assistant_uuid=m.source_tool_assistant_uuid,
                timestamp=m.timestamp or None,
            )

    def _hook(self, hook: str, line: str) -> None:
        self._emit(DebugHook, hook=hook, line=line)

    def extend(self, messages: Sequence[Message]) -> None:
        """Put messages on the list without a step (between loops), recording any new ones."""
        self.record(*(m for m in messages if m.uuid not in self.by_uuid))
        self.messages.extend(messages)

    # -- one model call ------------------------------------------------------------------------

    def start_turn(self) -> None:
        self.turn += 1
        self._emit(TurnStarted, message_count=len(self.messages))
        self._hook("loop_turn", loop_turn_line(self.turn, len(self.messages)))

    def request(
        self,
        params: dict[str, Any],
        keys: Sequence[str],
        messages: list[Message] | None = None,
        *,
        body: bool = False,
    ) -> bytes | None:
        """Resending: log the request the internal list normalizes to.

        ``keys`` is the body's key order (``messages`` among them); ``params`` the other keys.
        With ``body`` the encoded body is returned too (an API log compares it with the logged
        one); otherwise only its size and hash are computed, incrementally (:mod:`.body_hash`).
        """
        api = self._normalized(self.messages if messages is None else messages)
        prev = self._prev_api
        limit = min(len(api), len(prev))
        # The normalizer hands back the very same objects for the part of the history it kept,
        # and an object it kept stays at its place until it is normalized again, never to come
        # back: the identical messages are one run from the start. So the run is found from its
        # end, in as many steps as messages changed, not one per message of the whole history
        # (which made a long import quadratic). Past the identical run, equal messages count.
        prefix = limit
        while prefix > 0 and api[prefix - 1] is not prev[prefix - 1]:
            prefix -= 1
        while prefix < limit and (
            api[prefix].role == prev[prefix].role and api[prefix].parts == prev[prefix].parts
        ):
            prefix += 1
        changed = params != self._params or list(keys) != self._keys
        size, sha = self._hasher.digest(params, keys, api, prefix, self.by_uuid)
        encoded = None
        if body:
            wire = materialize(api, self.by_uuid)
            encoded = encode_body({k: wire if k == "messages" else params[k] for k in keys})
        self.request_index += 1
        self._emit(
            RequestSent,
            request_index=self.request_index,
            message_count=len(api),
            internal_count=len(self.messages),
            prefix_request=self.request_index - 1 if prefix else None,
            prefix_len=prefix,
            tail=[m.to_ref() for m in api[prefix:]],
            bytes=size,
            sha256=sha,
            params=params if changed else None,
            body_keys=list(keys) if changed else None,
        )
        self._prev_api, self._params, self._keys = api, params, list(keys)
        self._api_count = len(api)
        return encoded

    def _normalized(self, messages: list[Message]) -> list[Any]:
        """The API messages of a list; the last list's are reused (appending computed them)."""
        if (
            self._api_cache is not None
            and self._api_cache[0] is messages
            and self._api_cache[1] == len(messages)
        ):
            return self._api_cache[2]
        api = self._normal.normalize(messages)
        self._api_cache = (messages, len(messages), api)
        return api

    def response(
        self,
        *,
        message_id: str,
        model: str,
        usage: dict[str, Any],
        assistant: list[Message],
        stop_reason: str | None,
        latency_ms: int | None = None,
        attempts: int = 1,
    ) -> list[dict[str, Any]]:
        """The response's messages, the response step and the follow-up decision.

        Returns the ``tool_use`` blocks (``needs_follow_up`` is true exactly when there are any,
        whatever ``stop_reason`` says, as in Claude Code).
        """
        self.record(*assistant)
        self._emit(
            ResponseReceived,
            request_index=self.request_index,
            message_id=message_id,
            model=model,
            usage=usage,
            assistant_uuids=[m.uuid for m in assistant],
            stop_reason=stop_reason,
            latency_ms=latency_ms,
            attempts=attempts,
        )
        uses = [b for m in assistant for b in m.tool_uses()]
        self._emit(
            FollowUpDecided,
            needs_follow_up=bool(uses),
            tool_use_ids=[str(b.get("id")) for b in uses],
            stop_reason=stop_reason,
        )
        self._hook("needs_follow_up", needs_follow_up_line(bool(uses), len(uses)))
        return uses

    def http_attempt(self, attempt: int, error: str, status: int | None = None) -> None:
        """An attempt behind the current request that gave no whole response."""
        self._emit(
            HttpAttempt,
            request_index=self.request_index,
            attempt=attempt,
            status=status,
            error=error,
        )

    def tool_result(self, result: ToolResult, *, record_message: bool = True) -> None:
        """``tool_run``, mapping, the wrapped message, wrapping and the ``Tool result`` hook."""
        block = result.block
        kind = error_kind(block, result.output)
        if kind == "permission":
            self._emit(
                PermissionDecided,
                tool_use_id=result.tool_use_id,
                tool=result.tool,
                decision="reject",
                source="prompt",
                feedback=result.feedback,
                message=block_text(block),
            )
        run = self._emit(
            ToolFinished,
            tool_use_id=result.tool_use_id,
            tool=result.tool,
            input=result.input,
            output=result.output,
            is_error=bool(block.get("is_error")),
            error_kind=kind,
            duration_ms=result.duration_ms,
        )
        length = content_length(block.get("content"))
        text = block_text(block)
        persisted = {"preview": True} if text.startswith("<persisted-output>") else None
        empty = text.startswith(f"({result.tool} completed with no output)") or None
        mapped = self._emit(
            ResultMapped,
            tool_use_id=result.tool_use_id,
            tool=result.tool,
            block=block,
            content_length=length,
            mapped_length=len(text),
            persisted=persisted,
            empty_replaced=empty,
        )
        if record_message and result.message.uuid not in self.by_uuid:
            # Only the first result of a message owns the raw output (one toolUseResult each).
            content = result.message.content
            self.record(
                result.message,
                raw_seq=getattr(run, "seq", None) or None
                if result.output is result.message.tool_use_result
                else None,
                # Only a block that comes first can be pointed at: feedback may precede it.
                block_seq=getattr(mapped, "seq", None) or None
                if isinstance(content, list) and content and content[0] is block
                else None,
            )
        self._emit(
            ResultWrapped,
            tool_use_id=result.tool_use_id,
            tool=result.tool,
            message_uuid=result.message.uuid,
            source_tool_assistant_uuid=result.assistant_uuid,
            feedback=result.feedback,
        )
        self._hook("tool_result", tool_result_line(result.tool, block))

    def append(self, new: list[Message]) -> None:
        """Appending, then the max-turns check (no limit is known for an imported session)."""
        before = len(self.messages)
        for m in new:
            if m.uuid not in self.by_uuid:
                self.record(m)
        self.messages = [*self.messages, *new]
        self._emit(
            HistoryAppended,
            before_count=before,
            after_count=len(self.messages),
            new_uuids=[m.uuid for m in new],
            assistant_count=sum(m.type == "assistant" for m in new),
            tool_result_count=sum(m.has_tool_result() for m in new),
            api_before_count=self._api_count,
            api_after_count=len(self._normalized(self.messages)),
        )
        self._emit(MaxTurnsChecked, next_turn_count=self.turn + 1, exceeded=False)

    def reset(
        self, messages: list[Message], text: str, data: dict[str, Any], topic: str = "compaction"
    ) -> None:
        """Compaction (or a cleared context): the list is replaced; the next request starts
        afresh."""
        before = len(self.messages)
        self.record(*(m for m in messages if m.uuid not in self.by_uuid))
        self.messages = list(messages)
        self.note(
            topic,
            text,
            data={**data, "before_count": before, "after_count": len(self.messages)},
        )

    def end(self, reason: EndReason, error: str | None = None) -> None:
        self._emit(
            SessionEnded,
            reason=reason,
            turn_count=self.turn,
            message_count=len(self.messages),
            error=error,
        )


def _rest(content: Any) -> list[Any] | None:
    """A message's content after its first block (``None`` when nothing follows it)."""
    return list(content[1:]) or None if isinstance(content, list) else None
