"""``tracer import claude-code``: a Claude Code transcript becomes a tracer trace.

Claude Code writes its session to ``~/.claude/projects/<project>/<session>.jsonl``: one record per
*internal* message, which is the list chapter 12's ``Loop turn`` hook counts. A streamed response
is one ``assistant`` record per content block (all sharing ``message.id``), each tool result is
its own ``user`` record carrying the tool's raw output beside it as ``toolUseResult``. What it
never writes is the request itself, so this module rebuilds each one:

1. :mod:`~tracer.importers.dag` picks the records the model really saw;
2. assistant fragments are grouped by ``message.id``: one group is one model call (one turn),
   its tokens counted once, from its last record (earlier ones hold partial ``output_tokens``);
3. before each call the internal list so far is normalized exactly as the live loop does
   (:func:`~tracer.messages.normalize_messages_for_api`), which gives the request;
4. the ``user`` records after a call are its tool results: each goes through ``tool_run``,
   mapping and wrapping, then everything is appended; compaction replaces the list with the
   summary; subagent runs are noted on the Task call that started them.

Each prompt starts a new ``query()`` in Claude Code, so a response without ``tool_use`` ends a
loop (``terminal`` ``completed``) and the next prompt opens the next one in the same trace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.errors import UserError
from tracer.importers.builder import ToolResult, TraceBuilder
from tracer.importers.dag import CONVERSATION, active_path
from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport, created_at, epoch_of
from tracer.importers.shapes import transcript_record
from tracer.importers.subagents import describe, link_subagents
from tracer.importers.transcript import (
    INTERRUPTED,
    Boundary,
    Response,
    group_calls,
    skip_label,
    split_at_compactions,
)
from tracer.messages import Message
from tracer.trace.events import EndReason, Event, Header, SessionStarted
from tracer.trace.writer import TraceWriter

NOTES = (
    "Claude Code does not log its requests: each one is rebuilt from the transcript with only "
    "model and messages (no system prompt, tools or max_tokens), so a request's bytes and sha256 "
    "describe that rebuilt body, not what was sent.",
    "The content blocks of one response (one message.id) are merged; its usage is the last "
    "record's, counted once.",
    "Turns are numbered across the whole session; Claude Code restarts its count at each prompt.",
    "Permission steps appear only where the user refused a tool; tool start times are not logged.",
)


@dataclass
class Transcript:
    """A transcript read and analysed, ready to be emitted."""

    path: Path
    before: list[Message | Boundary]
    responses: list[Response]
    calls: dict[str, tuple[str, Any, str]]
    links: dict[str, list[dict[str, Any]]]
    report: ImportReport
    source: dict[str, Any]


def load_transcript(path: str | Path) -> Transcript:
    """Read and analyse a transcript; nothing is written yet."""
    path = Path(path)
    report = ImportReport(source=str(path))
    records = read_jsonl(path, report, transcript_record)
    active = active_path(records, report)
    if not active.records:
        raise UserError("no user or assistant messages: not a Claude Code transcript", path,
                        records[0][0])
    for _, rec in records:
        if rec.get("type") not in CONVERSATION and not (
                rec.get("subtype") == "compact_boundary" and rec.get("parentUuid") is None):
            report.skip(skip_label(rec))
    if active.sidechain:
        report.skip("sidechain records (subagents, noted on their Task call)",
                    len(active.sidechain))

    before, responses = group_calls(active.records, report)
    calls: dict[str, tuple[str, Any, str]] = {}
    results: dict[str, Any] = {}
    for resp in responses:
        for m in resp.messages:
            for b in m.tool_uses():
                calls[str(b.get("id"))] = (str(b.get("name")), b.get("input"), m.uuid)
        for m in resp.after:
            if isinstance(m, Message) and m.has_tool_result():
                for b in m.blocks:
                    results[str(b.get("tool_use_id"))] = m.tool_use_result
    links = link_subagents(records, active.sidechain, path,
                           {k: (v[0], v[1]) for k, v in calls.items()}, results)

    first = next((r for _, r in records if r.get("version")), {})
    source: dict[str, Any] = {"kind": "import", "format": "claude-code", "path": str(path),
                              "version": first.get("version"), "session_id": first.get("sessionId")}
    titles = [str(r.get("summary") or r.get("customTitle") or r.get("aiTitle")) for _, r in records
              if r.get("type") in ("summary", "custom-title", "ai-title")]
    if titles:
        source["title"] = titles[-1]  # the newest title Claude Code gave the session
    if active.subagent_file:
        source["subagent"] = first.get("agentId") or True
        report.notes.append("every message is a sidechain: imported as the subagent's own loop")
    return Transcript(path, before, responses, calls, links, report, source)


def emit_transcript(t: Transcript, emit: Callable[[Event], Any]) -> TraceBuilder:
    """Emit every step of the transcript's journey through ``emit``."""
    b = TraceBuilder(emit, keep_bodies=False)  # nothing to compare the rebuilt bodies with
    first = t.responses[0].records[0]["message"] if t.responses else {}
    prompts = [m for m in t.before if isinstance(m, Message) and m.type == "user" and not m.is_meta]
    prompt = prompts[0].blocks[0].get("text", "") if prompts and prompts[0].blocks else ""
    tools = list(dict.fromkeys(name for name, _, _ in t.calls.values()))
    b._emit(SessionStarted, model=str(first.get("model", "unknown")), prompt=str(prompt),
            tools=tools, request_params={"model": first.get("model", "unknown")})
    segments = split_at_compactions(t.before)
    b.extend(segments[0][1])
    _compactions(b, segments[1:])
    if not t.responses:
        b.end("aborted_streaming", "the transcript holds no model response")
    for i, resp in enumerate(t.responses):
        last = i == len(t.responses) - 1
        uses = _call(b, resp)
        t.report.count("model calls")
        segments = split_at_compactions(resp.after)
        pre = segments[0][1]
        for m in pre:
            if m.has_tool_result():
                _tool_steps(b, t, m)
        stop = next((k + 1 for k, m in enumerate(pre) if _is_interruption(m)), None)
        reason: EndReason = "aborted_tools" if uses else "completed"
        error = "the transcript ends after the tool results" if uses and stop is None else None
        if uses and stop is None and not last:
            b.append([*resp.messages, *pre])  # the loop goes on: appending, then resending
        elif last:
            b.extend([*resp.messages, *pre])
            _compactions(b, segments[1:])
            b.end(reason, error)
            break
        else:
            # The loop ended here; whatever follows (a new prompt) opens the next loop.
            if stop is None:
                stop = next((k for k, m in enumerate(pre) if not m.has_tool_result()), len(pre))
            b.extend([*resp.messages, *pre[:stop]])
            b.end(reason, error)
            b.extend(pre[stop:])
        _compactions(b, segments[1:])
    return b


def _call(b: TraceBuilder, resp: Response) -> list[dict[str, Any]]:
    """One model call: turn start, the rebuilt request, the response and its follow-up."""
    recs = resp.records
    model = str(recs[-1]["message"].get("model", "unknown"))
    b.start_turn()
    b.request({"model": model}, ["model", "messages"])
    stop = next((r["message"].get("stop_reason") for r in reversed(recs)
                 if r["message"].get("stop_reason")), None)
    return b.response(message_id=resp.message_id, model=model, stop_reason=stop,
                      usage=dict(recs[-1]["message"].get("usage") or {}),
                      assistant=resp.messages)


def _is_interruption(m: Message) -> bool:
    return m.type == "user" and not m.has_tool_result() and bool(m.blocks) and str(
        m.blocks[0].get("text", "")).startswith(INTERRUPTED)


def _compactions(b: TraceBuilder, segments: list[tuple[Boundary | None, list[Message]]]) -> None:
    for boundary, messages in segments:
        data = {k: v for k, v in (boundary.data if boundary else {}).items() if v is not None}
        # What compaction put in place: the summary and the meta messages and attachments that
        # follow it; the first real prompt or response after them is ordinary history again.
        cut = next((k for k, m in enumerate(messages) if m.type == "assistant"
                    or (m.origin == "prompt" and not m.is_meta)), len(messages))
        b.reset(messages[:cut], f"compaction ({data.get('trigger', 'unknown')}): the history "
                f"was replaced by its summary", data)
        b.extend(messages[cut:])


def _tool_steps(b: TraceBuilder, t: Transcript, m: Message) -> None:
    extra = [str(x.get("text", "")) for x in m.blocks if x.get("type") == "text"]
    done = epoch_of(m.timestamp)
    b.at(done)  # the tool finished when its result was written
    for block in m.blocks:
        if block.get("type") != "tool_result":
            continue
        tid = str(block.get("tool_use_id"))
        name, tool_input, auuid = t.calls.get(tid, ("unknown", None,
                                                    m.source_tool_assistant_uuid or ""))
        output = m.tool_use_result if m.tool_use_result is not None else block.get("content")
        asked = epoch_of(getattr(b.by_uuid.get(auuid), "timestamp", None))
        duration = round((done - asked) * 1000) if done is not None and asked is not None else None
        b.tool_result(ToolResult(tid, name, tool_input, block, m, output, auuid,
                                 feedback="\n".join(extra) or None,
                                 duration_ms=duration if duration is None or duration >= 0
                                 else None))
        t.report.count("tool results")
        for link in t.links.get(tid, []):
            b.note("subagent", describe(link), tool_use_id=tid, data=link)
            t.report.count(f"subagent links ({link['source']})")


def import_claude_code(path: str | Path, output: str | Path) -> ImportReport:
    """Import ``path`` into the trace ``output``; return what was done and skipped."""
    t = load_transcript(path)
    source = {**t.source, "notes": list(NOTES), "skipped": dict(t.report.skipped)}
    start = next((e for m in t.before + [r.messages[0] for r in t.responses]
                  if isinstance(m, Message) and (e := epoch_of(m.timestamp)) is not None), None)
    with TraceWriter(output, Header(created=created_at(start), source=source,
                                     tracer_version=__version__, paths=None),
                     keep_time=True, atomic=True) as writer:
        b = emit_transcript(t, writer)
    t.report.count("events", b.events)
    return t.report
