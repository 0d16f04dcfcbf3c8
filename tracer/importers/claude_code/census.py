"""One walk over a Claude Code transcript's records, gathering what every later step reads.

A long session is mostly records the model never saw: ``progress`` lines (a hook ran, a command
printed), file snapshots, titles. Several steps each need something from *all* of them: the
parent links (:mod:`tracer.importers.claude_code.chain`), which records are messages
(:mod:`tracer.importers.claude_code.dag`), what is left out and under which kind
(:mod:`tracer.importers.claude_code.importer`), a subagent's ``agent_progress`` mirror
(:mod:`tracer.importers.claude_code.subagents`), the session's title and version. Each walking the
whole file again, reading the same fields of every record, cost more than the work they did; so the
file is walked once, here, and each step reads its part of the :class:`Census`.

Nothing here decides where a record belongs: it only sorts them by what their own fields say.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import field

from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport
from tracer.importers.shapes import clean_records, is_clean
from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONVERSATION = ("user", "assistant", "attachment")
TITLES = ("summary", "custom-title", "ai-title")


@lean_dataclass
class Census:
    """A transcript's records sorted by what they are; every list keeps file order."""

    records: list[Record]
    messages: list[Record] = field(default_factory=list)
    """User, assistant and attachment records with a uuid."""
    main: list[Record] = field(default_factory=list)
    """... of them, those not in a sidechain."""
    sidechain: list[Record] = field(default_factory=list)
    """Every sidechain record with a uuid, of any kind."""
    candidates: list[Record] = field(default_factory=list)
    """What the active path may keep: the messages and the ``compact_boundary`` records."""
    by_uuid: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each uuid's first record (a uuid written twice is read where it first appears)."""
    position: dict[str, int] = field(default_factory=dict)
    """... its index in ``records``."""
    left_out: dict[tuple[Any, Any], int] = field(default_factory=dict)
    """How many records the importer does not read, by ``(type, subtype or data.type)``, first
    seen first."""
    progress: dict[str, list[Record]] = field(default_factory=lambda: defaultdict(list))
    """``agent_progress`` records by the ``parentToolUseID`` of the Task call they mirror."""
    first: dict[str, Any] = field(default_factory=dict)
    """The first record that names the Claude Code version (it also holds the session id)."""
    title: str | None = None
    """The newest title Claude Code gave the session."""


def take_census(records: list[Record], report: ImportReport | None = None) -> Census:
    """Walk ``records`` once and sort them (see :class:`Census`).

    With a ``report``, the records are the parser's: each record's shape is checked in the
    same walk (:func:`~tracer.importers.shapes.is_clean`, handed the fields read here), so no
    second walk over the file reads them again. A file holding a record of the wrong shape (cut
    or edited by hand: rare) is mended whole by :func:`~tracer.importers.shapes.clean_records`,
    which counts what it mends or drops, and walked again. Without a report the records come
    cleaned already.
    """
    if report is not None:
        census = _walk(records, checked=True)
        if census is not None:
            return census
        records = clean_records(records, report)
    census = _walk(records, checked=False)
    assert census is not None  # an unchecked walk never gives up
    return census


def _walk(records: list[Record], checked: bool) -> Census | None:
    """The census walk; ``None`` at the first record of the wrong shape, when ``checked``.

    This is the one loop that runs for every record of the file, so each record's fields are
    read once and the lists are filled through local names (an attribute or a ``dict.get`` costs
    as much as the rest of the work done for a ``progress`` record). Once shapes are checked, a
    ``uuid`` is a string or ``None``.
    """
    c = Census(records)
    by_uuid, position, left_out, progress = c.by_uuid, c.position, c.left_out, c.progress
    messages, main, sidechain, candidates = c.messages, c.main, c.sidechain, c.candidates
    count = left_out.get
    # Left-out records come in runs of one kind (a hook's progress records, one a call): a
    # run is counted as it goes and added in when it ends, so a key is hashed once a run, not
    # once a record (its strings are new for each record, and a tuple keeps no hash).
    run: tuple[Any, Any] = (None, None)
    length = 0  # of the run so far
    first: dict[str, Any] | None = None
    title: str | None = None
    for pos, item in enumerate(records):
        rec = item[1]
        get = rec.get
        uid = get("uuid")
        kind = get("type")
        sub = get("subtype")
        side = get("isSidechain", False)
        data = get("data")
        if checked and not is_clean(rec, kind, uid, sub, side, data):
            return None
        if uid is not None and uid not in by_uuid:
            by_uuid[uid] = rec
            position[uid] = pos
        if first is None and get("version"):
            first = rec
        side = uid and side
        if side:
            sidechain.append(item)
        if kind in CONVERSATION:
            if uid:
                messages.append(item)
                candidates.append(item)
                if not side:
                    main.append(item)
            continue
        # Left out, under its subtype or else its data's type.
        data_kind = data.get("type") if isinstance(data, dict) else None
        if data_kind is not None and type(data_kind) is not str:
            data_kind = None  # a label only, and a key: a list there would not hash
        if kind == "progress":
            if data_kind == "agent_progress":
                progress[str(get("parentToolUseID"))].append(item)
        elif kind in TITLES:
            title = str(get("summary") or get("customTitle") or get("aiTitle"))
        if sub == "compact_boundary":
            if kind == "system" and uid:
                candidates.append(item)
            if get("parentUuid") is None:
                continue  # a compaction's boundary: read, it starts the summary
        # A plain dict, not a Counter: ``+=`` on a Counter item goes through the subclass's
        # slower item lookup.
        key = kind, sub or data_kind
        if key == run:
            length += 1
        else:
            if length:
                left_out[run] = count(run, 0) + length
            run, length = key, 1
    if length:
        left_out[run] = count(run, 0) + length
    c.first = first or {}
    c.title = title
    return c
