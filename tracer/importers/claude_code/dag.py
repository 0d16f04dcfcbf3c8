"""Which records of a Claude Code transcript were the conversation the model saw, in what order.

A transcript is not a list of requests. Every record points at its predecessor with
``parentUuid``; rewinding or editing a prompt starts a second child of the same parent, and
parallel tool calls make each ``tool_result`` hang off *its own* ``tool_use`` record (in v2.1 also
named by ``sourceToolAssistantUUID``), so the records form a tree. The conversation that reached
the model is the path from the last message back to the root, plus the tool results answering the
``tool_use`` blocks on that path (Claude Code rebuilds a resumed session the same way, walking
``parentUuid`` back from a leaf).

Real files bend that picture in several ways, each handled here:

* **compaction** starts a new root. Since 2.0 a ``system``/``compact_boundary`` (``parentUuid:
  null``) keeps the old leaf in ``logicalParentUuid``; in 1.0.x there is no boundary at all, only
  the summary itself as a root ``user`` record with ``isCompactSummary``. Both times the walk goes
  on into the history before, and the summary is marked so a compaction note can be written.
  A boundary's logical parent need not be in the file: Claude Code 2.1.88 takes it from the
  last message of the list it compacts (``compactConversation`` in ``services/compact/
  compact.ts`` passes ``messages.at(-1)?.uuid`` to ``createCompactBoundaryMessage``), and
  not every message of that list is written (``isLoggableMessage`` in
  ``utils/sessionStorage.ts`` keeps progress out, and an external user's attachments). tracer
  assumes that the history compacted then ends with the main message written just before the
  boundary (records are appended as the conversation runs, and compaction comes between
  requests), and goes on there when that conversation reached the model (holds a response),
  as for a cleared context below. Nothing before it, or nothing answered: the walk ends at
  the boundary, as for a file cut there. (A 1.0.x summary root names no parent at all and
  always goes on into the message written before it.);
* **system records** (``api_error`` retries, ``stop_hook_summary``) sit on the chain by *file
  position* but may point at an older record (an attachment); the next prompt then hangs off them.
  Such a record continues the record written just before it whenever its parent is an ancestor
  of that record, so a finished stretch of work is not taken for an abandoned branch;
* under **streaming tool execution** a ``tool_result`` line can be written before the assistant
  record it answers. Records are put in parent order (a record never before its parent or before
  the ``tool_use`` it answers), not in file order;
* a ``tool_result`` that answers **no tool_use** anywhere stays in: it is the chapter's
  id-mismatch error, for the doctor to find, not noise to drop;
* **a second conversation** in the same file: plan mode's "clear context" and ``/clear`` start a
  new root (``parentUuid: null``) that Claude Code writes itself (the interrupted plan call and
  "Implement the following plan", or the ``/clear`` command). When the conversation written
  before that root reached the model (it holds a response), it is imported too, as the loop
  before, and the root is marked so a "context cleared" note is written. Any other new root
  is a first prompt the user rewound and replaced;
* **local commands** (``/model``, ``/status``) in 1.0.x: their records hang off the one caveat
  record written before the first command, so a later ``/model`` points far back. Like a system
  record, such a record continues the record written just before it. Commands after the last
  answer never reached a request: they are skipped as local commands, not as a rewind;
* **hook attachments** (``PreToolUse``/``PostToolUse`` text for the model) hang off the
  ``tool_use`` or ``tool_result`` they belong to, beside the chain: they are kept as what the
  model saw;
* **a start written elsewhere**: the walk back ends at a record whose parent is not in the file
  at all (a session split across two files, a file cut short). The path is imported from there,
  and that parent is kept, with the results on the path whose calls are in the missing start,
  so that a note can say what the rebuilt requests lack.

Whatever is left out is counted under its real reason: "rewound or edited" only for a branch that
starts with a prompt the user replaced. Sidechain records (subagents, before v2.1 kept inline) are
left to :mod:`tracer.importers.claude_code.subagents` unless the whole file is one subagent's own
transcript. The link each record's walk follows (compaction, system records, local commands) is
worked out in
:mod:`tracer.importers.claude_code.chain`; this module walks it and sorts what it reached.
"""

from __future__ import annotations

from dataclasses import field

from tracer.importers.claude_code.branches import SkipReasons
from tracer.importers.claude_code.census import Census
from tracer.importers.claude_code.chain import Chain
from tracer.importers.claude_code.order import Kept, in_conversation_order
from tracer.importers.claude_code.record_kinds import (
    for_model,
    is_local_command,
    is_summary_root,
    starts_afresh,
    tool_result_ids,
    tool_use_ids,
)
from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport
from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@lean_dataclass
class ActivePath:
    """The records to import, in conversation order, and what was set aside."""

    records: list[Record]
    sidechain: list[Record] = field(default_factory=list)
    subagent_file: bool = False
    """True when every message is a sidechain: the file is one subagent's transcript."""
    summary_roots: dict[str, str | None] = field(default_factory=dict)
    """1.0.x compaction summaries (root ``user`` records, no boundary) → the record before."""
    orphans: list[str] = field(default_factory=list)
    """``tool_use_id`` of each kept result that answers no ``tool_use`` in the file."""
    clear_roots: dict[str, str] = field(default_factory=dict)
    """Roots of a later conversation in the file (/clear, plan mode) → the earlier one's leaf."""
    missing_parent: str | None = None
    """The parent the conversation's first record names when it is not in the file: the file
    continues a conversation whose start was written elsewhere (a session split across two
    files, a file cut by hand). A compaction's boundary naming its old leaf is not this: the
    summary replaced that history."""
    history_answers: list[str] = field(default_factory=list)
    """``tool_use_id`` of each result on the path that answers a call of that missing start."""
    left_behind: list[dict[str, Any]] = field(default_factory=list)
    """Fragments of a response on the path holding only calls nothing answers, which the path
    passed by (the session was resumed from the response's other half): not sent again, but
    the response's usage and stop reason are theirs when they come last."""
    unlinked: dict[str, str] = field(default_factory=dict)
    """Compaction boundaries whose logical parent is not in the file → the main message written
    just before each, where the walk went on (the history the compaction replaced)."""
    left_out: dict[int, str] = field(default_factory=dict)
    """Why each record left out that holds a tool block was left out, by line: the count check
    names it beside the block
    (:meth:`~tracer.importers.claude_code.branches.SkipReasons.explain`)."""


Look = tuple[str | None, list[str], list[str]]
"""A message's ``message.id`` (responses only), the ``tool_use`` ids it holds, those it answers."""


def _look(rec: dict[str, Any]) -> Look:
    """What ``message_id``, ``tool_use_ids`` and ``tool_result_ids`` of
    :mod:`~tracer.importers.claude_code.record_kinds` say of a message, in one walk over its
    content: this runs for every message of the file, and the three each read the content again."""
    message = rec.get("message")
    if not isinstance(message, dict):
        return None, [], []
    mid = message.get("id") if rec.get("type") == "assistant" else None
    uses: list[str] = []
    answers: list[str] = []
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                kind = block.get("type")
                if kind == "tool_use":
                    uses.append(str(block.get("id")))
                elif kind == "tool_result":
                    answers.append(str(block.get("tool_use_id")))
    return mid, uses, answers


def active_path(census: Census, report: ImportReport) -> ActivePath:
    """The main conversation's records in conversation order, from its last message back."""
    main, sidechain = census.main, census.sidechain
    subagent_file = not main and bool(census.messages)
    if subagent_file:
        main, sidechain = census.messages, []
    if not main:
        return ActivePath([], sidechain, subagent_file)

    # Each main message is read once here: the response it belongs to, the tool_use ids it
    # holds and the ones it answers (``None`` for a candidate that is not one of ``main``).
    looks: list[Look | None] = []
    uses: dict[str, list[str]] = {}
    mids: list[tuple[str, str]] = []  # (uuid, message.id) of each response fragment
    look: Look | None  # a main message's look here; below, None for a candidate that is not one
    for _, rec in census.candidates:
        if rec["type"] == "system" or (rec.get("isSidechain") and not subagent_file):
            looks.append(None)
            continue
        look = _look(rec)
        looks.append(look)
        if look[0] is not None:
            mids.append((rec["uuid"], look[0]))
        if look[1]:
            uses[rec["uuid"]] = look[1]

    chain = Chain(census, main, report.source)
    on_path: set[str] = set()
    summary_roots: dict[str, str | None] = {}
    clear_roots: dict[str, str] = {}
    unlinked: dict[str, str] = {}
    # The last message, unless it is a local command typed after the last answer.
    leaf = next((r for _, r in reversed(main) if not is_local_command(r)), main[-1][1])
    cur: dict[str, Any] | None = leaf
    missing_parent: str | None = None
    # The record walked from; after the walk, the (position, message.id) of the last response
    last: dict[str, Any] | tuple[int, str | None]
    while cur is not None:
        on_path.add(cur["uuid"])
        parent = chain.parent(cur)
        # The flag is read first: this runs for every record on the path, few are summaries.
        if cur.get("isCompactSummary") and is_summary_root(cur):
            summary_roots[cur["uuid"]] = parent
        elif parent is None and not subagent_file:
            before = chain.main_before(cur["uuid"])
            if (
                before is not None
                and before not in on_path
                and starts_afresh(cur)
                and chain.answered(before)
            ):
                clear_roots[cur["uuid"]] = parent = before  # the conversation before it
        last, cur = cur, chain.by_uuid.get(parent) if parent else None
        if cur is None and _is_boundary(last):
            # A boundary whose logical parent is a message Claude Code held but never wrote
            # (see the module's docstring): the history it replaced is the conversation written
            # just before it, when that one reached the model.
            before = chain.main_before(last["uuid"])
            if before is not None and before not in on_path and chain.answered(before):
                unlinked[last["uuid"]] = before
                cur = chain.by_uuid[before]
        if cur is None and parent and not _replaced(last, summary_roots):
            missing_parent = parent
        if cur is not None and cur["uuid"] in on_path:
            # A record that names itself or a later record of its own chain as its parent:
            # the file was edited or damaged. Walking on would go round forever.
            report.notes.append(chain.cycle_note(cur["uuid"]))
            break

    # Parallel tool_use blocks of one response can sit on side branches: a response is all the
    # records with its message.id, wherever they hang. Except a call nothing in the file
    # answers, on a fragment the path passed by, when a later response is on the path: the
    # session was resumed from the response's other half and went on without the call (Claude
    # Code drops an unanswered call from a session it resumes, and the next request's token
    # count shows it was not sent). With no later response the session simply ended there,
    # and the call stays, unanswered, as the response's.
    responses = {mid for uid, mid in mids if uid in on_path}
    last = max(
        ((chain.position[uid], mid) for uid, mid in mids if uid in on_path),
        default=(-1, None),
    )
    left_behind = {
        uid
        for uid, mid in mids
        if mid in responses
        and uid not in on_path
        and uid in uses
        and mid != last[1]
        and chain.position[uid] < last[0]
    }
    if left_behind:  # rare: only then is every answer in the file worth gathering
        answered = {t for look in looks if look is not None for t in look[2]}
        left_behind = {uid for uid in left_behind if not any(t in answered for t in uses[uid])}
    on_path |= {uid for uid, mid in mids if mid in responses and uid not in left_behind}
    asked = {tid for uid, ids in uses.items() if uid in on_path for tid in ids}
    every_use = {tid for ids in uses.values() for tid in ids}
    keep: list[Kept] = []
    orphans: list[str] = []
    history_answers: list[str] = []
    reasons = SkipReasons(chain, on_path, left_behind)
    # Messages and boundaries: nothing else is kept.
    for item, look in zip(census.candidates, looks, strict=True):
        rec = item[1]
        uid = rec["uuid"]
        if look is None:
            if rec["type"] == "system" and uid in on_path:  # a compact_boundary on the path
                keep.append((item, tool_use_ids(rec), tool_result_ids(rec)))
            continue  # or a subagent's record, left to tracer.importers.claude_code.subagents
        ids = look[2]
        if uid in on_path or any(t in asked for t in ids):
            keep.append((item, look[1], ids))
            if missing_parent is not None and uid in on_path:
                history_answers += (t for t in ids if t not in every_use)
        elif rec.get("parentUuid") in on_path and for_model(rec):
            keep.append((item, look[1], ids))  # a hook's text beside the chain: the model saw it
        elif ids and not set(ids) & every_use:
            keep.append((item, look[1], ids))  # answers nothing: a finding for the doctor
            orphans += ids
        else:
            report.skip(reasons.of(rec))
            if look[1] or look[2]:
                reasons.hold(item[0], uid, look[1], look[2])
    return ActivePath(
        in_conversation_order(keep),
        sidechain,
        subagent_file,
        summary_roots,
        orphans,
        clear_roots,
        missing_parent,
        history_answers,
        [chain.by_uuid[uid] for uid in sorted(left_behind, key=chain.position.__getitem__)],
        unlinked,
        reasons.explain(),
    )


def _is_boundary(rec: dict[str, Any]) -> bool:
    """A ``compact_boundary`` as Claude Code writes it: a root whose old leaf is its
    ``logicalParentUuid`` (the link :meth:`Chain.parent` follows)."""
    return rec.get("subtype") == "compact_boundary" and rec.get("parentUuid") is None


def _replaced(first: dict[str, Any], summary_roots: dict[str, str | None]) -> bool:
    """Whether the history before ``first`` was replaced by a compaction summary (a boundary, or
    a 1.0.x summary root), so that a missing parent loses nothing the model was sent."""
    return first.get("subtype") == "compact_boundary" or first["uuid"] in summary_roots


__all__ = [
    "ActivePath",
    "active_path",
]
