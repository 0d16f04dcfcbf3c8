"""The journey of one Claude Code transcript, step by step: what :func:`emit_transcript` writes.

:mod:`tracer.importers.claude_code` reads and analyses a transcript; this module replays it as the
loop would have run it (``queryLoop()`` in ``src/query.ts``): for each model call ``turn_start``,
the rebuilt request (**resending**), the response and the follow-up decision; for each tool result
``tool_run``, **mapping** and **wrapping**; then **appending** and the next call, or the loop's
end. A compaction replaces the history with its summary; an API error ends the loop with
``model_error``; a Task call's subagent runs as a nested loop before the call's result comes back
(``subagent_start`` … ``subagent_end``). Each prompt starts a new ``query()``, so a response
without ``tool_use`` ends a loop and the next prompt opens the next one in the same trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracer.agent.messages import Message
from tracer.importers.builder import ToolResult, TraceBuilder
from tracer.importers.output import epoch_of
from tracer.importers.subagents import describe
from tracer.importers.transcript import (
    INTERRUPTED,
    Boundary,
    Response,
    Transcript,
    split_at_compactions,
)
from tracer.trace.events import EndReason, Event, SessionStarted, SubagentEnded, SubagentStarted


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
    segments = split_at_compactions(t.before)
    b.extend(segments[0][1])
    _compactions(b, segments[1:])
    if not t.responses:
        b.end("aborted_streaming", "the transcript holds no model response")
    resent = False
    for i, resp in enumerate(t.responses):
        last = i == len(t.responses) - 1
        if resp.error is not None:
            _failed_call(b, resp, model)
            t.report.count("failed model calls")
            segments = split_at_compactions(resp.after)
            b.extend(segments[0][1])
            _compactions(b, segments[1:])
            continue
        if resp.cut_off:
            _cut_off(b, resp)
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
        uses = _call(b, resp, resent)
        resent = False
        t.report.count("model calls")
        segments = split_at_compactions(resp.after)
        pre = segments[0][1]
        for m in pre:
            if m.has_tool_result():
                _tool_steps(b, t, m)
        stop = next((k + 1 for k, m in enumerate(pre) if _is_interruption(m)), None)
        reason: EndReason = "aborted_tools" if uses else "completed"
        why: str | None = None
        if stop is None and any(s and s.data.get("cleared") for s, _ in segments[1:]):
            stop = len(pre)  # the context was cleared: this loop ends here, whatever it asked
            why = CLEARED if uses else None
        if uses and stop is None and not last:
            b.append([*resp.messages, *pre])  # the loop goes on: appending, then resending
        elif last:
            b.extend([*resp.messages, *pre])
            _compactions(b, segments[1:])
            # Only the last call can have asked for tools and got no interruption yet no next
            # request: say why (worked out here, not for every call on the way).
            b.end(reason, _unfinished(uses, pre) if uses and stop is None else None)
            break
        else:
            # The loop ended here (no tool asked for, or interrupted); whatever follows (a new
            # prompt) opens the next loop.
            if stop is None:
                stop = next((k for k, m in enumerate(pre) if not m.has_tool_result()), len(pre))
            b.extend([*resp.messages, *pre[:stop]])
            b.end(reason, why)
            b.extend(pre[stop:])
        _compactions(b, segments[1:])


def _call(b: TraceBuilder, resp: Response, resent: bool = False) -> list[dict[str, Any]]:
    """One model call: turn start, the rebuilt request, the response and its follow-up.

    ``resent``: the request already went out once and its stream broke off (:func:`_cut_off`);
    this response answers it the second time, so no new turn or request is written."""
    recs = resp.records
    model = str(recs[-1]["message"].get("model", "unknown"))
    if not resent:
        b.start_turn()
        b.request({"model": model}, ["model", "messages"])
    stop = next(
        (
            r["message"].get("stop_reason")
            for r in reversed(recs)
            if r["message"].get("stop_reason")
        ),
        None,
    )
    return b.response(
        message_id=resp.message_id,
        model=model,
        stop_reason=stop,
        usage=dict(recs[-1]["message"].get("usage") or {}),
        assistant=resp.messages,
        attempts=2 if resent else 1,
    )


def _cut_off(b: TraceBuilder, resp: Response) -> None:
    """A request whose stream broke off: the piece that came is recorded, but it is no turn of
    the conversation (the next request, sent again, does not hold it)."""
    model = str(resp.records[-1]["message"].get("model", "unknown"))
    b.start_turn()
    b.request({"model": model}, ["model", "messages"])
    b.record(*resp.messages)
    b.note(
        "cut_off",
        "the answer that broke off still cost tokens (its usage, as Claude Code recorded it)",
        data={
            "message_id": resp.message_id,
            "request_index": b.request_index,
            "usage": dict(resp.usage()),
        },
    )
    b.http_attempt(
        1,
        f"the stream broke off after {len(resp.messages)} content block(s); Claude Code kept "
        "the piece in the transcript and sent the same request again (the next answer's "
        "usage counts the same prompt)",
    )


def _failed_call(b: TraceBuilder, resp: Response, model: str) -> None:
    """A call whose response never came: Claude Code wrote an API-error notice instead."""
    b.start_turn()
    b.request({"model": model}, ["model", "messages"])
    b.extend(resp.messages)  # the notice is for the user; normalizing never sends it
    b.end("model_error", resp.error)


def _unfinished(uses: list[dict[str, Any]], after: list[Message]) -> str:
    """Why a loop that asked for tools has no next request in the transcript."""
    answered = {str(x.get("tool_use_id")) for m in after if m.has_tool_result() for x in m.blocks}
    missing = [u for u in uses if str(u.get("id")) not in answered]
    if missing:
        names = ", ".join(dict.fromkeys(str(u.get("name")) for u in missing))
        return (
            f"the transcript ends before the result of {len(missing)} of {len(uses)} tool "
            f"call(s) ({names}) was written: the session was stopped while the tool ran, "
            "or is still running"
        )
    return (
        "every tool result was written, but the next request was not: the session was "
        "stopped before it, or is still running"
    )


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
    return (
        m.type == "user"
        and not m.has_tool_result()
        and bool(m.blocks)
        and str(m.blocks[0].get("text", "")).startswith(INTERRUPTED)
    )


CLEARED = (
    "the context was cleared (/clear, or plan mode's clear context) before the next request: "
    "a new conversation follows"
)


def _compactions(b: TraceBuilder, segments: list[tuple[Boundary | None, list[Message]]]) -> None:
    for boundary, messages in segments:
        data = {k: v for k, v in (boundary.data if boundary else {}).items() if v is not None}
        if data.get("cleared"):
            # A new root: nothing of the history before is sent again.
            cut = next(
                (
                    k
                    for k, m in enumerate(messages)
                    if m.type == "assistant" or (m.origin == "prompt" and not m.is_meta)
                ),
                len(messages),
            )
            b.reset(
                messages[:cut],
                "a new conversation in the same file: the context was cleared (/clear, or "
                "plan mode's clear context), and the next request starts from nothing",
                data,
                topic="context_cleared",
            )
            b.extend(messages[cut:])
            continue
        # What compaction put in place: the summary and the meta messages and attachments that
        # follow it; the first real prompt or response after them is ordinary history again.
        cut = next(
            (
                k
                for k, m in enumerate(messages)
                if m.type == "assistant" or (m.origin == "prompt" and not m.is_meta)
            ),
            len(messages),
        )
        b.reset(
            messages[:cut],
            f"compaction ({data.get('trigger', 'unknown')}): the history "
            f"was replaced by its summary",
            data,
        )
        b.extend(messages[cut:])


def _tool_steps(b: TraceBuilder, t: Transcript, m: Message) -> None:
    extra = [str(x.get("text", "")) for x in m.blocks if x.get("type") == "text"]
    done = epoch_of(m.timestamp)
    b.at(done)  # the tool finished when its result was written
    for block in m.blocks:
        if block.get("type") != "tool_result":
            continue
        tid = str(block.get("tool_use_id"))
        # A result that answers no call (an id mismatch) still ran through the three steps;
        # the doctor reports it. Its tool and input are unknown.
        name, tool_input, auuid = t.calls.get(
            tid, ("unknown", {}, m.source_tool_assistant_uuid or "")
        )
        output = m.tool_use_result if m.tool_use_result is not None else block.get("content")
        asked = epoch_of(getattr(b.by_uuid.get(auuid), "timestamp", None))
        duration = round((done - asked) * 1000) if done is not None and asked is not None else None
        child = t.children.get(tid)
        if child is not None:
            _nested(b, t, tid, child)
        b.tool_result(
            ToolResult(
                tid,
                name,
                tool_input,
                block,
                m,
                output,
                auuid,
                feedback="\n".join(extra) or None,
                duration_ms=duration if duration is None or duration >= 0 else None,
            )
        )
        t.report.count("tool results")
        for link in t.links.get(tid, []):
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
