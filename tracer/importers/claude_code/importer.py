"""``tracer import claude-code``: a Claude Code transcript becomes a tracer trace.

Claude Code writes its session to ``~/.claude/projects/<project>/<session>.jsonl``: one record per
*internal* message, which is the list chapter 12's ``Loop turn`` hook counts. A streamed response
is one ``assistant`` record per content block (all sharing ``message.id``), each tool result is
its own ``user`` record carrying the tool's raw output beside it as ``toolUseResult``. What it
never writes is the request itself, so this module rebuilds each one:

1. :mod:`~tracer.importers.claude_code.dag` picks the records the model really saw;
2. assistant fragments are grouped by ``message.id``: one group is one model call (one turn),
   its tokens counted once, from its last record (earlier ones hold partial ``output_tokens``);
3. before each call the internal list so far is normalized exactly as the live loop does
   (:func:`~tracer.model.api_messages.normalize_messages_for_api`), which gives the request;
4. the ``user`` records after a call are its tool results: each goes through ``tool_run``,
   mapping and wrapping, then everything is appended; compaction replaces the list with the
   summary; a Task call's subagent run (inline sidechain or agent file) is analysed the same way
   and becomes a nested loop inside the call.

This module reads and analyses (:func:`load_transcript`, :func:`analyse`);
:mod:`tracer.importers.claude_code.journey` writes the steps,
:mod:`tracer.importers.claude_code.emit` the header's source and the count check, and
:mod:`tracer.importers.claude_code.live` does it all again and again while Claude Code is still
writing the session. Subagent runs are matched to their Task call by
:mod:`tracer.importers.claude_code.subagents`; a second conversation in the file, local commands and
hook text are placed by :mod:`tracer.importers.claude_code.dag`.
"""

from __future__ import annotations

from collections import Counter

from tracer import __version__
from tracer.errors import UserError
from tracer.files.pathnames import pathname
from tracer.importers.claude_code.agent_files import AgentRead
from tracer.importers.claude_code.census import Census, take_census
from tracer.importers.claude_code.dag import active_path
from tracer.importers.claude_code.emit import emit_all, header_source, start_epoch
from tracer.importers.claude_code.subagents import RECORDS, link_subagents, progress_records
from tracer.importers.claude_code.transcript import (
    Response,
    Transcript,
    fold_errors_after_tools,
    group_calls,
    mark_resends,
    missing_history_text,
)
from tracer.importers.claude_code.transcript_records import skip_label
from tracer.importers.jsonl import Record, read_jsonl
from tracer.importers.output import ImportReport, collector_paused, created_at, epoch_of
from tracer.model.internal_messages import Message
from tracer.trace.events import Header
from tracer.trace.line_check import LineCheck
from tracer.trace.writer import TraceWriter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tracer.files.pathnames import Name
    from tracer.importers.claude_code.transcript import Boundary

#: Subagents of subagents of ... are followed this deep.
MAX_DEPTH = 4


def load_transcript(path: Name, depth: int = 0, read: AgentRead | None = None) -> Transcript:
    """Read and analyse a transcript; nothing is written yet. ``read``: the file, read already
    (an agent file, read when its run was counted)."""
    if read is not None:
        if read.error is not None:
            raise read.error
        return analyse(read.records, read.file, read.report, depth)
    path = pathname(path)  # as str(Path(path)) spells it
    report = ImportReport(source=path)
    return analyse(read_jsonl(path, report), path, report, depth)


def _left_out(census: Census) -> Counter[str]:
    """How many records of each kind the importer does not read, by label, in first-seen order
    (as one ``skip()`` each would report them). The census counted them by kind and subtype;
    each kind is labelled once: a long session holds hundreds of progress records."""
    labels: Counter[str] = Counter()
    for (kind, sub), n in census.left_out.items():
        labels[skip_label(kind, sub)] += n
    return labels


def analyse(
    records: list[Record], path: Name, report: ImportReport, depth: int = 0, clean: bool = False
) -> Transcript:
    """Pick the conversation out of a transcript's records and find its subagent runs.

    ``records`` may be the parser's: the census checks their shapes as it walks them (and has
    :mod:`tracer.importers.shapes` mend them), so from here on ``records`` are the cleaned ones.
    ``clean``: they are such records already (an inline subagent run's, taken from its parent's
    census), and are not checked a second time.
    """
    path = pathname(path)  # the name the trace and every note give: str(Path(path))'s
    census = take_census(records, None if clean else report)
    records = census.records
    active = active_path(census, report)
    if not active.records:
        # Only a file that is no transcript gets here: no import of a real one loads this.
        from tracer.trace.foreign import looks_like

        if records and looks_like(records[0][1]) == "api-log":
            raise UserError(
                "this is an API log (request/response pairs), not a Claude Code transcript: "
                f"run `tracer import api-log {path}`",
                path,
                records[0][0],
            )
        raise UserError(
            "no user or assistant messages: not a Claude Code transcript",
            path,
            records[0][0] if records else None,
        )
    for label, n in _left_out(census).items():
        report.skip(label, n)
    if active.summary_roots:
        report.notes.append(
            f"{len(active.summary_roots)} compaction(s) without a "
            "compact_boundary record (1.0.x): the history before each summary "
            "is kept, and the compaction is noted"
        )
    if active.orphans:
        report.notes.append(
            f"{len(active.orphans)} tool_result(s) answer no tool_use in this "
            f"file ({', '.join(active.orphans[:3])}): kept, for the doctor"
        )

    if active.clear_roots:
        report.notes.append(
            f"{len(active.clear_roots) + 1} conversations in this file (the context was cleared "
            f"{len(active.clear_roots)} time(s): /clear, or plan mode's clear context): each is "
            "imported as its own loop, one after the other"
        )
    if active.unlinked:
        report.notes.append(
            f"{len(active.unlinked)} compaction(s) whose boundary names a logical parent not in "
            "this file (a message Claude Code held but did not write): the history each replaced "
            "is the conversation written just before its boundary (line "
            + ", ".join(
                str(census.records[census.position[u]][0]) for u in active.unlinked.values()
            )
            + "), imported before the compaction"
        )
    before, responses = group_calls(
        active.records,
        report,
        active.summary_roots,
        active.clear_roots,
        active.left_behind,
        active.unlinked,
    )
    responses = fold_errors_after_tools(responses)
    mark_resends(responses)
    calls, results, times = _tool_calls(responses, timed=bool(active.sidechain))
    reads: dict[str, AgentRead] = {}
    links = link_subagents(
        census.progress, active.sidechain, path, calls, results, times, report, reads
    )

    first = census.first
    source: dict[str, Any] = {
        "kind": "import",
        "format": "claude-code",
        "path": path,
        "version": first.get("version"),
        "session_id": first.get("sessionId"),
    }
    if census.title is not None:
        source["title"] = census.title  # the newest title Claude Code gave the session
    if active.subagent_file and depth == 0:
        source["subagent"] = first.get("agentId") or True
        report.notes.append("every message is a sidechain: imported as the subagent's own loop")
    elif active.subagent_file:
        source["subagent"] = first.get("agentId") or True
    t = Transcript(path, before, responses, calls, links, report, source, records, depth=depth)
    t.left_out = active.left_out
    # A file that starts with the model's answer gets the missing_prompt note instead (the
    # journey's), unless results of that missing start are in it too.
    if active.missing_parent is not None and (
        active.history_answers or any(isinstance(m, Message) and m.type == "user" for m in before)
    ):
        t.missing_history = {"parent": active.missing_parent, "answers": active.history_answers}
        report.notes.append(missing_history_text(t.missing_history))
    nested = _find_children(t, reads) if depth < MAX_DEPTH else 0
    if len(active.sidechain) > nested:
        report.skip(
            "sidechain records of no Task call found in this file", len(active.sidechain) - nested
        )
    return t


def _tool_calls(
    responses: list[Response], timed: bool
) -> tuple[
    dict[str, tuple[str, Any, str]], dict[str, Any], dict[str, tuple[float | None, float | None]]
]:
    """Each ``tool_use`` of the responses as ``id → (name, input, message uuid)``, each answer's
    ``toolUseResult`` by ``tool_use_id`` and, when ``timed``, when each call was asked for and
    answered (read only to match inline sidechain runs to their Task call).

    The content lists are walked here directly rather than through ``Message.tool_uses`` and
    ``Message.blocks``: this runs for every message, and each of those builds a list first."""
    calls: dict[str, tuple[str, Any, str]] = {}
    results: dict[str, Any] = {}
    times: dict[str, tuple[float | None, float | None]] = {}
    m: Message | Boundary  # a response's message, then what came after the response
    for resp in responses:
        for m in resp.messages:
            content = m.content
            if not isinstance(content, list):
                continue
            for b in content:
                if b.get("type") == "tool_use":
                    tid = str(b.get("id"))
                    calls[tid] = (str(b.get("name")), b.get("input"), m.uuid)
                    if timed:
                        times[tid] = (epoch_of(m.timestamp), None)
        for m in resp.after:
            if isinstance(m, Message) and m.has_tool_result():
                # A list: it holds a tool_result block (has_tool_result says so; mypy cannot see it)
                for b in m.content:  # type: ignore[union-attr, assignment]
                    tid = str(b.get("tool_use_id"))
                    results[tid] = m.tool_use_result
                    if timed:
                        times[tid] = (times.get(tid, (None, None))[0], epoch_of(m.timestamp))
    return calls, results, times


#: Where a subagent run is read from when several are found: its own file is the whole run, the
#: inline records come next, the progress mirror last.
_PREFERENCE = {"file": 0, "inline": 1, "progress": 2}


def _find_children(t: Transcript, reads: dict[str, AgentRead]) -> int:
    """Load each Task call's subagent run as a transcript of its own (an agent file from what
    :func:`link_subagents` read of it, in ``reads``); return how many inline sidechain records
    they hold."""
    inline = 0
    for tid, links in t.links.items():
        for link in sorted(links, key=lambda k: _PREFERENCE.get(k["source"], 3)):
            conv = link.pop(RECORDS, None)
            if link["source"] == "inline" and conv is not None:
                inline += len(conv)
            if tid in t.children:
                continue
            child: Transcript | None = None
            try:
                if conv is not None:
                    if link["source"] == "progress":  # rebuilt only now: see link_subagents
                        conv = progress_records(conv)
                    where = "sidechain" if link["source"] == "inline" else "agent_progress"
                    report = ImportReport(source=f"{t.path} ({where})")
                    # An inline run's records are the parent's, checked (and mended) by its
                    # census; a run rebuilt from progress records is new, and checked here.
                    checked = link["source"] == "inline"
                    child = analyse(conv, t.path, report, t.depth + 1, clean=checked)
                    child.source["inline"] = True
                    child.source["rebuilt_from"] = link["source"]
                elif link["source"] == "file" and not link.get("missing"):
                    file = link["file"]
                    child = load_transcript(file, t.depth + 1, reads.pop(file, None))
            except UserError as exc:
                link["unreadable"] = str(exc)
                t.report.notes.append(f"subagent of {tid} not imported: {exc}")
            if child is not None:
                t.children[tid] = child
    return inline


def import_claude_code(path: Name, output: Name) -> ImportReport:
    """Import ``path`` into the trace ``output``; return what was done and skipped."""
    # The transcript is built, written and freed inside: the collector comes back only once
    # the import's objects are gone, so its first collection has nothing of theirs to walk.
    with collector_paused():
        return _import(path, output)


def _import(path: Name, output: Name) -> ImportReport:
    t = load_transcript(path)
    source, start = header_source(t), start_epoch(t)
    # The readers' checks, asked of each line as it is written: the count check says nothing
    # is missing, and this says every command will open what holds it.
    check = LineCheck()
    with TraceWriter(
        output,
        Header(created=created_at(start), source=source, tracer_version=__version__, paths=None),
        keep_time=True,
        flush=False,
        atomic=True,
        check=check,
    ) as writer:
        b = emit_all(t, writer.write)  # the method, not the writer: see emit_all
    t.report.count("events", b.events)
    t.report.unreadable = check.finish()
    return t.report


__all__ = [
    "analyse",
    "import_claude_code",
    "load_transcript",
]
