"""``tracer show``: a trace as plain text, one line per step, for pipes and CI logs.

Each line: the step number, the turn, the stage, then what the step did in a few words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracer.text.cells import clip
from tracer.trace.events import (
    STEP_KINDS,
    HttpAttempt,
    HttpAttemptStarted,
    SubagentEnded,
    SubagentStarted,
)
from tracer.trace.reader import TraceReader
from tracer.trace.tokens import token_account, tokens_of

_WIDTH = 72


def _short(text: Any, width: int = 48) -> str:
    """One line of at most ``width`` terminal cells (a CJK character takes two)."""
    return clip(text, width)


def describe(event: Any) -> str:
    """A few words on what a step did."""
    kind = event.kind
    if kind == "session_start":
        return f"model {event.model}, tools {', '.join(event.tools)}: {_short(event.prompt)}"
    if kind == "turn_start":
        return f"state.messages: {event.message_count}"
    if kind == "request":
        if event.prefix_request:
            same = f"same {event.prefix_len} as request {event.prefix_request}"
            same += f" + {len(event.tail)} new"
        else:  # request 1 is the first send, not a resend: nothing came before it
            same = "first send" if event.request_index == 1 else f"{len(event.tail)} new"
        count = event.message_count
        line = (
            f"request {event.request_index}: {count} API message{'' if count == 1 else 's'} "
            f"({same}), {event.bytes} bytes"
        )
        pairing = getattr(event, "pairing", None) or {}
        if pairing.get("added") or pairing.get("stripped"):
            fixes = [f"+{len(pairing.get('added') or [])} made-up result"]
            if pairing.get("stripped"):
                fixes.append(f"-{len(pairing['stripped'])} orphan")
            line += f"; ensureToolResultPairing: {', '.join(fixes)}"
        return line
    if kind == "response":
        tokens = tokens_of(event.usage)
        counted = tokens.line() if tokens is not None else "no usage recorded"
        # An imported transcript may have none: its JSON's null, not Python's None.
        reason = "null" if event.stop_reason is None else event.stop_reason
        return f"{len(event.assistant_uuids)} block(s), stop_reason {reason}, {counted}"
    if kind == "follow_up":
        return (
            f"needsFollowUp {str(event.needs_follow_up).lower()}, "
            f"{len(event.tool_use_ids)} tool_use"
        )
    if kind == "permission":
        extra = f" feedback {_short(event.feedback, 30)!r}" if event.feedback else ""
        return f"{event.tool} {event.tool_use_id}: {event.decision} ({event.source}){extra}"
    if kind == "tool_run":
        err = f" error ({event.error_kind})" if event.is_error else ""
        return f"{event.tool} {_short(event.input, 40)}{err}"
    if kind == "mapping":
        block = event.block
        note = " persisted" if event.persisted else ""
        return (
            f"tool_result is_error {str(block.get('is_error', False)).lower()}, content "
            f"length {event.content_length}{note}"
        )
    if kind == "wrapping":
        fb = " + feedback" if event.feedback else ""
        return f"user message {event.message_uuid[:8]}{fb} for {event.tool_use_id}"
    if kind == "appending":
        return (
            f"messages: {event.before_count} → {event.after_count} (API "
            f"{event.api_before_count} → {event.api_after_count})"
        )
    if kind == "max_turns_check":
        if event.max_turns is None:
            return f"next turn {event.next_turn_count}; no max_turns set, go on"
        verdict = "yes: stop" if event.exceeded else "no: go on"
        return f"next turn {event.next_turn_count} > max_turns {event.max_turns}? {verdict}"
    if kind == "terminal":
        error = f": {_short(event.error)}" if event.error else ""
        return f"reason {event.reason}, turn {event.turn_count}{error}"
    return ""


def show_lines(reader: TraceReader) -> Iterator[str]:
    """One line per step; a subagent's nested loop is indented under the Task call running it,
    between a line that opens it and one that closes it (those two are not steps)."""
    step = 0
    waiting: HttpAttemptStarted | None = None  # an HTTP attempt that went out and has not ended yet
    plain: set[object] = set()  # this request's attempts sent without streaming (the fallback)
    depth = 0
    for i in range(len(reader)):
        event = reader[i]  # decoding every line: a corrupt record is an error, not silence
        kind = event.kind
        if isinstance(event, SubagentStarted):
            prompt = f": {_short(event.prompt, 40)}" if event.prompt else ""
            yield (
                f"{'':>4}  {'':8} {'  ' * depth}┌ subagent {event.loop} for "
                f"{event.tool_use_id}{prompt}"
            )
            depth += 1
            continue
        if isinstance(event, SubagentEnded):
            depth = max(depth - 1, 0)
            yield (
                f"{'':>4}  {'':8} {'  ' * depth}└ subagent {event.loop}: "
                f"{event.turn_count} turn(s), back to {event.tool_use_id}"
            )
            continue
        if isinstance(event, HttpAttemptStarted):
            waiting = event
            if event.streaming is False:
                plain.add(event.attempt)
        elif isinstance(event, HttpAttempt):
            # Retries and failures only: a clean first attempt is the response step itself.
            waiting = None
            how = event.error or f"HTTP {event.status}"
            fallback = " (without streaming)" if event.attempt in plain else ""
            yield f"{'':<32}attempt {event.attempt}{fallback}: {_short(how, 60)}"
        if kind not in STEP_KINDS:
            continue
        waiting = None
        plain.clear()
        step += 1
        pad = "  " * depth
        yield f"{step:>4}  turn {event.turn:<3} {pad}{STEP_KINDS[kind]:<16} {describe(event)}"
    if waiting is not None:
        seconds = waiting.timeout
        limit = f"{seconds:g} s" if isinstance(seconds, int | float) else "none"
        yield (
            f"{'':<32}attempt {waiting.attempt}: in flight when the trace stops (timeout {limit})"
        )


def token_line(reader: TraceReader) -> str | None:
    """The session's tokens as Claude Code counted them (input, cache read and write, output),
    for the line after the steps; ``None`` when no call recorded any."""
    account = token_account(reader[i] for i in range(len(reader)))
    return account.summary() if account.rows else None
