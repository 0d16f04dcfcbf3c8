"""The parent links of a Claude Code transcript as the conversation really ran.

Every record names its predecessor (``parentUuid``), but :mod:`tracer.importers.claude_code.dag`
cannot follow that link as written everywhere. :meth:`Chain.parent` gives the link the walk takes:

* a ``compact_boundary`` (``parentUuid: null``) goes on to the old leaf it keeps in
  ``logicalParentUuid``, and a 1.0.x summary root (no boundary at all) to the message written
  just before it, so the history before a compaction is still reached (a boundary whose logical
  parent is not in the file is taken on to the message written before it by
  :mod:`~tracer.importers.claude_code.dag`, which knows which conversations reached the model);
* a ``system`` record (an ``api_error`` retry, a ``stop_hook_summary``) or a 1.0.x local command
  (``/model``) that points at an older record continues the message written just before it
  instead, when its parent is an ancestor of that message: by file position it sits on the
  chain, and a finished stretch of work is not taken for an abandoned branch.

The rest are walks along those links, each bounded (a damaged file can hold a cycle): whether one
record is an ancestor of another, whether a chain holds a model response (a conversation that
reached the model), and the note for a link that loops.
"""

from __future__ import annotations

import bisect

from tracer.importers.claude_code.census import Census
from tracer.importers.claude_code.record_kinds import is_local_command, is_summary_root
from tracer.importers.jsonl import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Chain:
    """Parent links as the conversation really ran, and the walks along them."""

    def __init__(self, census: Census, main: list[Record], path: str = "") -> None:
        self.path = path
        # The census walked the file already: its first record of each uuid is the one read.
        self.by_uuid = census.by_uuid
        self.position = census.position
        self._records = census.records
        # Where each message of the main conversation (``main``) was first written, in file order.
        self._main_positions = sorted({census.position[rec["uuid"]] for _, rec in main})
        self._main_at = [self._records[pos][1]["uuid"] for pos in self._main_positions]
        self._to_root: dict[str, int] = {}  # see is_ancestor

    def main_before(self, uid: str) -> str | None:
        """The main-chain message written just before record ``uid``."""
        k = bisect.bisect_left(self._main_positions, self.position[uid])
        return self._main_at[k - 1] if k else None

    def is_ancestor(self, older: str, uid: str | None, limit: int = 10_000) -> bool:
        """Whether ``older`` is ``uid`` or one of the first ``limit`` records up its
        ``parentUuid`` chain (as written: this is the test :meth:`parent` relies on).

        A ``False`` walks all the way to the root, and the walks are nearly the same each time
        (back along the main conversation). So the last walk that reached the root is kept,
        each record by its distance from where that walk began: a later walk stops where it
        joins it, and the answer is read off the kept walk. A walk that reached the root went
        round no cycle, so each record is on it once.
        """
        kept, by_uuid = self._to_root, self.by_uuid  # read once: a walk can be long
        walked: list[str] = []  # its length is the number of steps taken
        while uid is not None and len(walked) < limit:
            if uid == older:
                return True
            joined = kept.get(uid)
            if joined is not None:  # from here on this walk is the kept one
                at = kept.get(older)
                return at is not None and at > joined and len(walked) + at - joined < limit
            walked.append(uid)
            rec = by_uuid.get(uid)
            # Records come cleaned (tracer.importers.shapes): a parentUuid is a string or None.
            uid = rec.get("parentUuid") if rec else None
        if uid is None:  # it reached the root
            self._to_root = {u: i for i, u in enumerate(walked)}
        return False

    def line(self, uid: str) -> int:
        """The line record ``uid`` was read from (0 when it is not in the file)."""
        pos = self.position.get(uid)
        return self._records[pos][0] if pos is not None else 0

    def cycle_note(self, uid: str) -> str:
        """The note for a parent link that loops back to ``uid``."""
        pos = self.position.get(uid)
        line = self._records[pos][0] if pos is not None else 0
        return (
            f"{self.path}:{line}: the parentUuid chain loops back to record {uid} (a cycle): "
            "the walk stopped there, and what lies before it is left out"
        )

    def answered(self, uid: str | None, limit: int = 100_000) -> bool:
        """Whether the chain ending at ``uid`` holds a model response."""
        seen: set[str] = set()
        while uid is not None and uid not in seen and len(seen) < limit:
            seen.add(uid)
            rec = self.by_uuid.get(uid)
            if rec is None:
                return False
            message = rec.get("message")
            if (
                rec.get("type") == "assistant"
                and isinstance(message, dict)
                and message.get("model") != "<synthetic>"
            ):
                return True
            parent = self.parent(rec)
            uid = parent if isinstance(parent, str) else None
        return False

    def parent(self, rec: dict[str, Any]) -> str | None:
        # Records come cleaned (tracer.importers.shapes): each has a string type, and its
        # parentUuid and logicalParentUuid are strings or None.
        parent = rec.get("parentUuid")
        if parent is None:  # a root, unless it starts a compaction's summary
            if rec.get("subtype") == "compact_boundary":
                return rec.get("logicalParentUuid")
            return self.main_before(rec["uuid"]) if is_summary_root(rec) else None
        if rec["type"] in ("system", "user"):
            # Most records hang off the message written just before them; only for the others
            # is it worth reading a user record's text to see whether it is a local command.
            before = self.main_before(rec["uuid"])
            if (
                before is not None
                and before != parent
                and (rec["type"] == "system" or is_local_command(rec))
                and self.is_ancestor(parent, before)
            ):
                return before  # it sits on the chain written just before it
        return parent
