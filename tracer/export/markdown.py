"""``tracer export --format md``: a session as a Markdown walk-through.

One section per turn; inside it one numbered line per step, named after its step of the result's
trip (① mapping, ② wrapping, ③ appending, ④ resending: the book's 翻译, 包装, 追加, 重新发送)
with what the step did, and the chapter's ``[DEBUG]`` lines where the loop printed them (a line
Claude Code 2.1.88 would not print is marked). Steps are numbered as ``tracer show`` numbers
them, through the whole session, so a step number means the same in every view. Tool results are
quoted (shortened), so the reader sees what actually travelled back to the model.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from tracer.export.walk import Walk, block_summary, note_of, short, usage_totals
from tracer.trace.hooks import shown_line
from tracer.trace.tokens import tokens_of

PREVIEW = 400


def _guide_titles() -> dict[str, str]:
    """Stage → chapter section title, when the chapter guide can be loaded (optional)."""
    try:
        from tracer.chapter.guide import load_guide

        guide = load_guide()
        out: dict[str, str] = {}
        for stage in (
            "tool_run",
            "mapping",
            "wrapping",
            "appending",
            "resending",
            "follow_up",
            "max_turns_check",
            "permission",
        ):
            section = guide.section_for_stage(stage)
            if section is not None:
                out[stage] = section.title.get("en") or next(iter(section.title.values()), "")
        return out
    except Exception:  # the guide is a nicety here; the export never depends on it
        return {}


def _fence(text: str) -> list[str]:
    body = text if len(text) <= PREVIEW else text[:PREVIEW] + f"\n… ({len(text)} chars in all)"
    fence = "````" if "```" in body else "```"
    return [fence, *body.split("\n"), fence]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", json.dumps(b, ensure_ascii=False))) if isinstance(b, dict) else str(b)
            for b in content
        )
    return json.dumps(content, ensure_ascii=False)


def describe(w: Walk, e: Any) -> list[str]:
    """The text of one step (first line, then any indented detail lines)."""
    k = e.kind
    if k == "turn_start":
        return [f"`state.messages` holds {e.message_count} internal messages"]
    if k == "request":
        same = (
            f"the first {e.prefix_len} as in request {e.prefix_request}, "
            if e.prefix_request
            else ""
        )
        verb = (
            "is the first send (no result yet to resend)"
            if e.request_index == 1
            else "resends the whole history"
        )
        lines = [
            f"request {e.request_index} {verb}: {e.message_count} API "
            f"messages ({same}{len(e.tail)} new), normalized from {e.internal_count} "
            f"internal ones, {e.bytes} bytes"
        ]
        pairing = getattr(e, "pairing", None) or {}
        if pairing.get("added") or pairing.get("stripped"):
            orphans = [i or "(no tool_use_id)" for i in pairing.get("stripped") or []]
            lines.append(
                "   patched by ensureToolResultPairing (as Claude Code 2.1.88 does): synthetic "
                f"is_error result for {', '.join(pairing.get('added') or []) or 'none'}; "
                f"orphan result stripped for {', '.join(orphans) or 'none'}"
                + (
                    f"; request {pairing['unpatched_request']} was the same history unpatched"
                    if pairing.get("unpatched_request")
                    else ""
                )
            )
        return lines
    if k == "response":
        blocks = [
            block_summary((w.messages[u].content or [{}])[0])
            for u in e.assistant_uuids
            if u in w.messages and isinstance(w.messages[u].content, list) and w.messages[u].content
        ]
        counted = tokens_of(e.usage)
        tokens = f"tokens: {counted.line()}" if counted is not None else "no usage recorded"
        return [
            f"`{e.model}` answered with {len(e.assistant_uuids)} block(s), stop_reason "
            f"`{e.stop_reason}`, {tokens}",
            *(f"   - {b}" for b in blocks),
        ]
    if k == "follow_up":
        return [
            f"`needsFollowUp` = {str(e.needs_follow_up).lower()} "
            f"({len(e.tool_use_ids)} tool_use block(s))"
        ]
    if k == "permission":
        return [f"{e.tool} `{e.tool_use_id}`: {e.decision} ({e.source})"]
    if k == "tool_run":
        status = f"error ({e.error_kind})" if e.is_error else "ok"
        return [f"{e.tool} `{short(e.input, 70)}` → {status}"]
    if k == "mapping":
        block = e.block
        return [
            f"`tool_result` block for `{e.tool_use_id}`, is_error "
            f"{str(block.get('is_error', 'unset')).lower()}, content length "
            f"{e.content_length}",
            *("   " + line for line in _fence(_content_text(block.get("content")))),
        ]
    if k == "wrapping":
        extra = " with the user's feedback" if e.feedback else ""
        return [
            f"wrapped in user message `{e.message_uuid[:8]}`{extra} "
            f"(sourceToolAssistantUUID `{e.source_tool_assistant_uuid[:8]}`)"
        ]
    if k == "appending":
        return [
            f"history {e.before_count} → {e.after_count} internal messages "
            f"(+{e.assistant_count} assistant, +{e.tool_result_count} tool result); "
            f"API view {e.api_before_count} → {e.api_after_count}"
        ]
    if k == "max_turns_check":
        limit = e.max_turns if e.max_turns is not None else "unset"
        return [
            f"next turn {e.next_turn_count} > max_turns {limit}? "
            f"{'yes: stop' if e.exceeded else 'no'}"
        ]
    if k == "terminal":
        error = f": {e.error}" if e.error else ""
        if e.reason == "max_turns":
            # Claude Code's turnCount for max_turns is the turn that would come next, and
            # never runs: the loop stops at the end of the turn before it.
            return [
                f"the loop returns `max_turns` at the end of turn {e.turn_count - 1} "
                f"(turnCount {e.turn_count}, the turn that was never run){error}"
            ]
        if e.reason == "model_error":
            # tracer's name for this end; 2.1.88's loop returns completed after the same
            # "API Error: …" assistant message (query.ts).
            return [
                f"the loop returns `model_error` after turn {e.turn_count}{error} (tracer's "
                'name: Claude Code 2.1.88 adds the same "API Error: …" message and returns '
                "`completed`)"
            ]
        return [f"the loop returns `{e.reason}` after turn {e.turn_count}{error}"]
    return [k]


def render(w: Walk) -> str:
    titles = _guide_titles()
    src = w.header.get("source") or {}
    session = w.session
    inp, out = usage_totals(w.events)
    lines = [f"# Session walk-through: {src.get('title') or w.path.name}", ""]
    what = src.get("format") or src.get("name") or ""
    lines.append(f"- source: {src.get('kind')} {what}".rstrip())
    if session is not None:
        lines += [
            f"- model: `{session.model}`",
            f"- prompt: {short(session.prompt, 200)}",
            f"- tools: {', '.join(session.tools) or '(none)'}",
        ]
    requests = sum(e.kind == "request" for e in w.events)
    lines.append(f"- {len(w.turns)} turns, {requests} requests, {inp} input / {out} output tokens")
    side = src.get("side_calls") or []
    if side:
        kinds = Counter(str(s.get("purpose")) for s in side)
        lines.append(
            f"- {len(side)} side calls kept out of the loop: "
            + ", ".join(f"{n} {k}" for k, n in kinds.items())
        )
    lines.append("")
    for note in src.get("notes") or []:
        lines.append(f"> {note}")
    if w.torn:
        lines.append(f"> {w.torn}")
    # One count for the whole session, the session step included, exactly as `tracer show`.
    numbers = {
        id(e): n for n, e in enumerate((e for e in w.events if getattr(e, "stage", None)), start=1)
    }
    for turn in w.turns:
        lines += ["", f"## Turn {turn.number}", ""]
        for e in turn.events:
            if e.kind == "debug_hook":
                lines.append(f"   `{shown_line(e)}`")
            elif e.kind == "import_note":
                topic, note = note_of(e)
                lines.append(f"   > {topic}: {note}")
            elif getattr(e, "stage", None):
                step = numbers.get(id(e), 0)
                text = describe(w, e)
                where = titles.get(e.stage)
                named = f"**{w.stage_name(e)}**" + (f" ({where})" if where else "")
                lines.append(f"{step}. {named}: {text[0]}")
                lines += text[1:]
    lines.append("")
    return "\n".join(lines)
