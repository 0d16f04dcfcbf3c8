"""The journey of one Claude Code transcript, step by step: what :func:`emit_transcript` writes.

:mod:`tracer.importers.claude_code.importer` reads and analyses a transcript; this module replays it
as the loop would have run it (``queryLoop()`` in ``src/query.ts``): for each model call
``turn_start``, the rebuilt request (**resending**), the response and the follow-up decision; for
each tool result ``tool_run``, **mapping** and **wrapping**; then **appending** and the next call,
or the loop's end. A compaction replaces the history with its summary; an API error ends the loop
with ``model_error``; a Task call's subagent runs as a nested loop before the call's result comes
back (``subagent_start`` … ``subagent_end``). Each prompt starts a new ``query()``, so a response
without ``tool_use`` ends a loop and the next prompt opens the next one in the same trace.

This module runs one loop and its tool results, a subagent's loop nested inside a Task call
included; how each model call is written (answered, cut off, failed) is in
:mod:`tracer.importers.claude_code.journey_calls`, compaction and a cleared context in
:mod:`tracer.importers.claude_code.journey_compactions`.
"""

from __future__ import annotations

from collections.abc import Callable

from tracer.importers.builder import TraceBuilder
from tracer.importers.claude_code.journey_calls import (
    cut_off_call,
    failed_call,
    model_call,
    unfinished,
)
from tracer.importers.claude_code.journey_compactions import CLEARED, compactions
from tracer.importers.claude_code.subagents import describe
from tracer.importers.claude_code.transcript import (
    Transcript,
    missing_history_text,
    split_at_compactions,
)
from tracer.importers.claude_code.transcript_records import INTERRUPTED
from tracer.importers.output import epoch_of
from tracer.model.internal_messages import Message
from tracer.trace.events import Event, SessionStarted, SubagentEnded, SubagentStarted

TYPE_CHECKING = False
if TYPE_CHECKING:  # EndReason is a Literal: at run time it would import typing
    from typing import Any

    from tracer.trace.events import EndReason


def emit_transcript(t: Transcript, emit: Callable[[Event], Any]) -> TraceBuilder:
    """Emit every step of the transcript's journey through ``emit``."""
    b = TraceBuilder(emit)
    _emit_loop(b, t)
    return b


def _emit_loop(b: TraceBuilder, t: Transcript) -> None:
    """One loop (the session, or a subagent's run inside it): set-up, every call, the end."""
    model = next(
        (str(r.records[-1]["message"].get("model")) for r in t.responses if not r.error), "unknown"
    )
    users = [m for m in t.before if isinstance(m, Message) and m.type == "user" and not m.is_meta]
    # The user's own words if the file has them; a session cut at a compaction starts with the
    # summary, which is then the closest thing to a prompt.
    prompts = [m for m in users if m.origin == "prompt"] or users
    prompt = prompt_text(prompts[0]) if prompts else ""
    tools = list(dict.fromkeys(name for name, _, _ in t.calls.values()))
    b._emit(
        SessionStarted, model=model, prompt=prompt, tools=tools, request_params={"model": model}
    )
    if not prompts:
        b.note(
            "missing_prompt",
            "the prompt is missing from this file: it starts with the "
            "model's answer, so the first request holds no user message",
            data={"first": next((m.type for m in t.before if isinstance(m, Message)), "assistant")},
        )
    if t.missing_history is not None:
        b.note("missing_history", missing_history_text(t.missing_history), data=t.missing_history)
    segments = split_at_compactions(t.before)
    b.extend(segments[0][1])
    compactions(b, segments[1:])
    if not t.responses:
        b.end("aborted_streaming", "the transcript holds no model response")
    resent = False
    for i, resp in enumerate(t.responses):
        last = i == len(t.responses) - 1
        if resp.error is not None:
            failed_call(b, resp, model)
            t.report.count("failed model calls")
            segments = split_at_compactions(resp.after)
            b.extend(segments[0][1])
            compactions(b, segments[1:])
            continue
        if resp.cut_off:
            cut_off_call(b, resp)
            t.report.count("model calls cut off and sent again")
            resent = True
            continue
        if resp.unwritten_input:
            b.note(
                "unwritten_input",
                f"the input of this turn (about {resp.unwritten_input} tokens, by the usage "
                "Claude Code recorded) was never written to the transcript: the rebuilt "
                "request lacks it",
                data={"tokens_estimate": resp.unwritten_input, "estimate": True},
            )
        uses = model_call(b, resp, resent)
        resent = False
        t.report.count("model calls")
        if resp.error_after is not None:
            b.note(
                "error_after_tools",
                f"Claude Code wrote an API error after this response's tool calls "
                f"({resp.error_after}) and ran the calls anyway: their results follow, and the "
                "next request (which leaves the error notice out) carries them",
                data={"error": resp.error_after},
            )
            t.report.count("tool calls run after an API error", len(uses))
        segments = split_at_compactions(resp.after)
        pre, later = segments[0][1], segments[1:]  # later: after a compaction, if any
        stop: int | None = None  # just past the user's interruption, if there is one
        for k, m in enumerate(pre):
            if m.has_tool_result():
                _tool_steps(b, t, m)
            elif stop is None and _is_interruption(m):
                stop = k + 1
        reason: EndReason = "aborted_tools" if uses else "completed"
        why: str | None = None
        if stop is None and later and any(s and s.data.get("cleared") for s, _ in later):
            stop = len(pre)  # the context was cleared: this loop ends here, whatever it asked
            why = CLEARED if uses else None
        if uses and stop is None and not last:
            b.append([*resp.messages, *pre])  # the loop goes on: appending, then resending
        elif last:
            b.extend([*resp.messages, *pre])
            compactions(b, later)
            # Only the last call can have asked for tools and got no interruption yet no next
            # request: say why (worked out here, not for every call on the way).
            b.end(reason, unfinished(uses, pre) if uses and stop is None else None)
            break
        else:
            # The loop ended here (no tool asked for, or interrupted); whatever follows (a new
            # prompt) opens the next loop.
            if stop is None:
                stop = next((k for k, m in enumerate(pre) if not m.has_tool_result()), len(pre))
            b.extend([*resp.messages, *pre[:stop]])
            b.end(reason, why)
            b.extend(pre[stop:])
        if later:
            compactions(b, later)


def prompt_text(m: Message) -> str:
    """A prompt's text: the first text block, with any images before it mentioned."""
    if isinstance(m.content, str):
        return m.content
    texts = [str(x.get("text", "")) for x in m.blocks if x.get("type") == "text"]
    images = sum(x.get("type") == "image" for x in m.blocks)
    text = texts[0] if texts else ""
    if images:
        text = f"[{images} image{'s' if images > 1 else ''}] {text}".rstrip()
    return text


def _is_interruption(m: Message) -> bool:
    """Whether a message holding no tool result (the caller has asked) is the user's
    interruption notice."""
    return (
        m.type == "user"
        and bool(m.blocks)
        and str(m.blocks[0].get("text", "")).startswith(INTERRUPTED)
    )


def _tool_steps(b: TraceBuilder, t: Transcript, m: Message) -> None:
    # What every result of the message shares (its feedback, its time, its raw output) is
    # worked out once per message, not once per result.
    # A list: only a list of blocks holds a tool_result (the caller asked; mypy cannot see it)
    blocks: list[dict[str, Any]] = m.content  # type: ignore[assignment]
    feedback = None
    if len(blocks) > 1:  # a lone block is the result itself (the caller asked): no text beside
        feedback = "\n".join([str(x.get("text", "")) for x in blocks if x.get("type") == "text"])
        feedback = feedback or None
    raw = m.tool_use_result
    done = b.at(m.timestamp)  # the tool finished when its result was written
    calls, children, links, by_uuid = t.calls, t.children, t.links, b.by_uuid
    for block in blocks:
        if block.get("type") != "tool_result":
            continue
        tid = str(block.get("tool_use_id"))
        call = calls.get(tid)
        if call is None:
            # A result that answers no call (an id mismatch) still ran through the three
            # steps; the doctor reports it. Its tool and input are unknown.
            call = ("unknown", {}, m.source_tool_assistant_uuid or "")
        name, tool_input, auuid = call
        asked = epoch_of(getattr(by_uuid.get(auuid), "timestamp", None))
        duration = round((done - asked) * 1000) if done is not None and asked is not None else None
        child = children.get(tid)
        if child is not None:
            _nested(b, t, tid, child)
        b.tool_result(
            tid,
            name,
            tool_input,
            block,
            m,
            raw if raw is not None else block.get("content"),
            auuid,
            feedback,
            duration if duration is None or duration >= 0 else None,
        )
        t.report.count("tool results")
        for link in links.get(tid) or ():
            b.note("subagent", describe(link), tool_use_id=tid, data=link)
            t.report.count(f"subagent links ({link['source']})")


def _nested(b: TraceBuilder, t: Transcript, tid: str, child: Transcript) -> None:
    """The subagent's own loop, inside the Task call, before the call's result comes back."""
    loop = str(
        child.source.get("subagent") if child.source.get("subagent") not in (None, True) else tid
    )
    b._emit(
        SubagentStarted,
        loop=loop,
        tool_use_id=tid,
        depth=child.depth,
        prompt=_first_prompt(child),
        source="inline" if child.source.get("inline") else str(child.path),
    )
    inner = b.nested()
    _emit_loop(inner, child)
    b.adopt(inner)
    b._emit(SubagentEnded, loop=loop, tool_use_id=tid, depth=child.depth, turn_count=inner.turn)
    t.report.count("subagent loops")
    for what, n in child.report.counts.items():
        t.report.count(what if what.startswith("subagent ") else f"subagent {what}", n)


def _first_prompt(t: Transcript) -> str | None:
    users = [m for m in t.before if isinstance(m, Message) and m.type == "user" and not m.is_meta]
    return prompt_text(users[0]) if users else None
