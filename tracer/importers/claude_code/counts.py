"""Did every tool call of the source reach the trace, in the right loop? A count check, written
into the import.

An import must never drop a tool call without a word (issue 18: a second conversation in one
file, work behind a 1.0.x local command, a subagent kept only as progress records, all vanished
while the old check, which counted what the importer counted, said nothing was missing). So the
check does not ask the importer what the source holds. It takes **every record of every line**
of the session file and of every agent file that belongs to the session (``<session>/subagents/``
and, for 2.0, ``agent-*.jsonl`` beside it with the same ``sessionId``), whatever the importer
made of them, and collects each ``tool_use`` and ``tool_result`` block: in ``message.content``,
and in the message an ``agent_progress`` record mirrors (``data.message.message.content``).

Each id is then looked for in the trace: a ``tool_use`` among the calls ``follow_up`` asks for, a
``tool_result`` among the ``tool_run`` steps. Every one that is not there is named with the
``file:line`` it was written on. Where the source says which Task call a block ran under (an agent
file named by a result's ``agentId``, a progress record's ``parentToolUseID``), the check also
asks whether the trace ran it inside that call's nested loop, so a run nested in the wrong call
is named too. The result is an ``import_note`` (topic ``counts``) and a line of the summary,
both written by :mod:`tracer.importers.claude_code.emit` (:func:`~.emit.describe_counts` words it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from tracer.files.pathnames import stem
from tracer.importers.claude_code.record_kinds import tool_result_ids
from tracer.importers.jsonl import Record
from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Named one by one in the note's data up to this many; the counts are always whole.
MAX_NAMED = 50

_MAIN = "main"
"""``Block.call`` of a block that runs in the session's own loop."""


@lean_dataclass
class Tally:
    """What the trace holds, counted as events go by: each call and result, and the Task call
    whose nested loop it ran in (``None`` for the session's own loop)."""

    asked: dict[str, str | None] = field(default_factory=dict)
    ran: dict[str, str | None] = field(default_factory=dict)
    history: set[str] = field(default_factory=set)
    """Results the import says answer a call of a conversation start the file lacks."""
    carried: set[str] = field(default_factory=set)
    """... of them, those the trace really holds, in a recorded message."""
    _stack: list[str] = field(default_factory=list)

    def see(self, event: Any) -> None:
        """Count one event on its way to the trace (only a few kinds matter)."""
        kind = event.kind
        if kind not in COUNTED_KINDS:
            return
        if kind == "message":
            if self.history and isinstance(event.content, list):
                self.carried.update(
                    str(b.get("tool_use_id"))
                    for b in event.content
                    if isinstance(b, dict)
                    and b.get("type") == "tool_result"
                    and str(b.get("tool_use_id")) in self.history
                )
            return
        if kind == "import_note":
            if event.topic == "missing_history" and isinstance(event.data, dict):
                self.history.update(str(a) for a in event.data.get("answers") or ())
            return
        inside = self._stack[-1] if self._stack else None
        if kind == "follow_up":
            for tid in event.tool_use_ids:
                self.asked.setdefault(tid, inside)
        elif kind == "tool_run":
            self.ran.setdefault(event.tool_use_id, inside)
        elif kind == "subagent_start":
            self._stack.append(event.tool_use_id)
        elif self._stack:  # subagent_end
            self._stack.pop()


#: The kinds :meth:`Tally.see` counts; every other event goes by untouched.
COUNTED_KINDS = frozenset(
    {"follow_up", "tool_run", "subagent_start", "subagent_end", "import_note", "message"}
)


@lean_dataclass(slots=True)
class Block:
    """One ``tool_use`` or ``tool_result`` block as the source wrote it. (Never changed, but not
    ``frozen``: a frozen dataclass sets each field through ``object.__setattr__``, which made
    making the blocks cost more than finding them.)"""

    kind: str
    """``tool_use`` or ``tool_result``."""
    id: str
    where: str
    """``file:line``."""
    record: str
    """What holds it: ``assistant``, ``user``, ``agent_progress``, ``sidechain``."""
    call: str | None
    """The Task call it ran under (:data:`_MAIN` for the session's own loop), when known."""


def _blocks_of(rec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The ids of a record's ``tool_use`` and ``tool_result`` blocks, in one pass over its
    content (what :func:`tool_use_ids` and :func:`tool_result_ids` give, in their order).

    The importer's path walk reads the same blocks (``dag._look``), and this is deliberately
    not that code: the count check must not count with the importer's own reading, or a fault
    in it would hide itself. A test holds both to the record helpers' answers."""
    message = rec.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return _NONE, _NONE
    uses: list[str] = []
    results: list[str] = []
    for b in content:
        if isinstance(b, dict):
            kind = b.get("type")
            if kind == "tool_use":
                uses.append(str(b.get("id")))
            elif kind == "tool_result":
                results.append(str(b.get("tool_use_id")))
    return uses, results


_NONE: list[str] = []
"""No blocks (shared, never changed)."""


def blocks_in(
    path: str, records: Iterable[Record], call: str | None, sidechain_call: str | None
) -> list[Block]:
    """Every tool block of one file's records: ``call`` is the Task call its records ran under,
    ``sidechain_call`` the one its ``isSidechain`` records ran under.

    Every record is looked at, but most hold no tool block (a long session is mostly progress
    records of hooks and commands), so each is given up on at the first field that shows it:
    no ``data.message`` in a progress record, no ``message`` in any other."""
    out: list[Block] = []
    name = str(path)
    for number, rec in records:
        kind = rec.get("type")
        if kind == "progress" and isinstance(data := rec.get("data"), dict):
            mirrored = data.get("message")
            if not isinstance(mirrored, dict):
                continue
            uses, results = _blocks_of(mirrored)
            if not uses and not results:
                continue
            label, under = str(data.get("type") or "progress"), rec.get("parentToolUseID")
            under = str(under) if under else None
        else:
            if not isinstance(rec.get("message"), dict):
                continue
            uses, results = _blocks_of(rec)
            if not uses and not results:
                continue
            if rec.get("isSidechain"):
                label, under = "sidechain", sidechain_call
            else:
                label, under = str(kind), call
        where = f"{name}:{number}"
        for t in uses:
            out.append(Block("tool_use", t, where, label, under))
        for t in results:
            out.append(Block("tool_result", t, where, label, under))
    return out


def session_blocks(
    path: str, records: list[Record], agent_files: list[tuple[str, list[Record]]]
) -> list[Block]:
    """The tool blocks of a session file and of its agent files, with where each should run."""
    sidechain_file = bool(records) and all(
        r.get("isSidechain") for _, r in records if r.get("type") in ("user", "assistant")
    )
    # Inline sidechains (1.0.x) name no call: where they ran is not checked.
    out = blocks_in(path, records, _MAIN, _MAIN if sidechain_file else None)
    by_agent = _agent_calls(records) if agent_files else {}
    for file, recs in agent_files:
        agent = stem(file)[len("agent-") :]
        under = by_agent.get(agent)
        out += blocks_in(file, recs, under, under)
    return out


def _agent_calls(records: list[Record]) -> dict[str, str]:
    """Which Task call each agent ran under: the ``agentId`` of a Task result, or of a progress
    record with its ``parentToolUseID`` (only asked when there are agent files to place)."""
    by_agent: dict[str, str] = {}
    for _, rec in records:
        result = rec.get("toolUseResult")
        if isinstance(result, dict) and result.get("agentId"):
            for tid in tool_result_ids(rec):
                by_agent.setdefault(str(result["agentId"]), tid)
        data = rec.get("data")
        if isinstance(data, dict) and data.get("agentId") and rec.get("parentToolUseID"):
            by_agent.setdefault(str(data["agentId"]), str(rec["parentToolUseID"]))
    return by_agent


def check_counts(
    blocks: list[Block], tally: Tally, files: int = 1, why: dict[str, str] | None = None
) -> dict[str, Any]:
    """Source blocks vs the trace: every block not in it, and every run in the wrong call.

    ``why`` says, by ``file:line``, why the importer left a record out (a retried or abandoned
    response, a rewound prompt, and where its calls went): a missing block on such a line is
    named with it. It explains a gap; it never hides one."""
    first: dict[tuple[str, str], Block] = {}
    placed: dict[tuple[str, str], Block] = {}
    for block in blocks:
        key = (block.kind, block.id)
        first.setdefault(key, block)
        if block.call is not None:
            placed.setdefault(key, block)  # the copy that says where it ran
    missing: list[Block] = []
    misplaced: list[dict[str, Any]] = []
    before_the_file = 0  # results whose call is in a conversation start the file lacks
    uses = 0
    ran_ids: set[str] = set()  # the results the source holds
    for key, block in first.items():
        if block.kind == "tool_use":
            uses, seen = uses + 1, tally.asked
        else:
            ran_ids.add(block.id)
            seen = tally.ran
        if block.id not in seen:
            # Believed only where the source agrees: it holds no such call, and the trace holds
            # the result (in the message the first request carries).
            if block.id in tally.carried and ("tool_use", block.id) not in first:
                before_the_file += 1
            else:
                missing.append(block)
            continue
        where = placed.get(key)
        if where is not None:
            want = None if where.call == _MAIN else where.call
            if seen[block.id] != want:
                misplaced.append({**_named(where), "expected_in": want, "found_in": seen[block.id]})
    return {
        "source_files": files,
        "source_tool_use": uses,
        "source_tool_result": len(first) - uses,
        "trace_tool_calls": len(tally.asked),
        "trace_tool_runs": len(tally.ran),
        "not_in_trace": len(missing),
        "missing": [_named(b, why) for b in missing[:MAX_NAMED]],
        "misplaced": misplaced[:MAX_NAMED],
        "misplaced_count": len(misplaced),
        "calls_without_result": len(set(tally.asked) - ran_ids - set(tally.ran)),
        "answers_before_the_file": before_the_file,
    }


def _named(block: Block, why: dict[str, str] | None = None) -> dict[str, Any]:
    named = {"kind": block.kind, "id": block.id, "where": block.where, "record": block.record}
    if why and block.where in why:
        named["why"] = why[block.where]
    return named
