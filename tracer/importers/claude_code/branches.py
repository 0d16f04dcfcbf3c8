"""Why a record off a transcript's active path was left out, and where its tool calls went.

:mod:`tracer.importers.claude_code.dag` keeps the records the model saw: the path from the last
message back to the root (the walk Claude Code makes when it resumes a session). Everything else
hangs on a side branch, and how the branch begins tells why it was left: a prompt the user rewound
and replaced, a response whose request was **retried** (the same parent has a second response on the
path: the request was sent again and answered), a response the conversation **abandoned** (the
path goes on from its parent with something else, a new prompt or a result), a call never
answered that a resumed session left behind, a local command after the last request.

:class:`SkipReasons` names each record's branch for the import's summary (one label a kind of
branch, counted), and for the records that hold tool blocks it says more
(:meth:`SkipReasons.explain`): which line the branch starts on, where the conversation went
instead, and whether its calls ran (their results are on the branch, but no later request held
them) or never did. The count check (:mod:`tracer.importers.claude_code.counts`) writes that beside
each block it finds missing from the trace.
"""

from __future__ import annotations

from tracer.importers.claude_code.chain import Chain
from tracer.importers.claude_code.record_kinds import is_local_command, tool_result_ids

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REWOUND = "records off the active branch (rewound or edited)"
CYCLE = "records whose parentUuid chain goes round in a cycle"
UNANSWERED = (
    "unanswered tool calls of a response the session was resumed from (the conversation goes on "
    "from the response's other half; the next request did not hold them)"
)
RETRIED = "records of a retried response (the same request was sent again and answered)"
ABANDONED = "records of an abandoned response (the conversation went on without it)"
LOCAL = "local command records (/status, /doctor, ...) after the last request: none sent"

Held = tuple[int, list[str], list[str]]
"""A left-out record that holds tool blocks: its line, its ``tool_use`` ids, the ids it answers."""


class SkipReasons:
    """Why each record off the active path was left out, named by how its branch begins."""

    def __init__(self, chain: Chain, on_path: set[str], left_behind: set[str]) -> None:
        self.chain, self.on_path, self.left_behind = chain, on_path, left_behind
        self._memo: dict[str, str] = {}
        self._first: dict[str, str] = {}
        """Each record walked → the first record of its branch."""
        self._went_on: dict[str, str] = {}
        """A retried or abandoned branch's first record → the record the path went on with."""
        self._held: dict[str, list[Held]] = {}
        self._children: dict[str, list[str]] | None = None

    def of(self, rec: dict[str, Any]) -> str:
        trail: list[str] = []
        seen: set[str] = set()
        cur: dict[str, Any] | None = rec
        reason = "records off the active branch"
        first: str | None = None
        while cur is not None:
            uid = cur["uuid"]
            if uid in self._memo:
                reason, first = self._memo[uid], self._first.get(uid)
                break
            if uid in seen:  # the parent links go round: never reach the path or a root
                reason = CYCLE
                break
            trail.append(uid)
            seen.add(uid)
            parent = self.chain.parent(cur)
            if parent is None or parent in self.on_path:
                reason, first = self._branch(cur, parent), uid
                break
            cur = self.chain.by_uuid.get(parent)
            if cur is None:
                reason = "records whose parent is not in this file"
        for uid in trail:
            self._memo[uid] = reason
            if first is not None:
                self._first[uid] = first
        return reason

    def _branch(self, first: dict[str, Any], parent: str | None) -> str:
        """The branch's first record tells what happened there."""
        kind = first.get("type")
        if first["uuid"] in self.left_behind:
            return UNANSWERED
        if is_local_command(first):
            return LOCAL
        if kind == "user" and not tool_result_ids(first) and not first.get("isMeta"):
            return REWOUND  # a prompt replaced by another (the first prompt has no parent)
        if parent is None:
            return "records of an earlier conversation in the same file (own root)"
        if kind == "assistant":
            went_on = self._next_on_path(parent)
            if went_on is None:
                return ABANDONED
            self._went_on[first["uuid"]] = went_on
            nxt = self.chain.by_uuid[went_on]
            mid = (first.get("message") or {}).get("id")
            if nxt.get("type") == "assistant" and (nxt.get("message") or {}).get("id") != mid:
                return RETRIED
            return ABANDONED
        return f"records on a side branch that starts with a {kind} record"

    def _next_on_path(self, parent: str) -> str | None:
        """The record the path goes on with after ``parent`` (the first written, if several):
        a response is a retry when that is another response to the same request."""
        if self._children is None:  # built once, and only for a file with such a branch
            self._children = {}
            by_uuid, position = self.chain.by_uuid, self.chain.position
            for uid in sorted((u for u in self.on_path if u in by_uuid), key=position.__getitem__):
                up = self.chain.parent(by_uuid[uid])
                if up is not None:
                    self._children.setdefault(up, []).append(uid)
        return next(iter(self._children.get(parent, ())), None)

    def hold(self, line: int, uid: str, uses: list[str], answers: list[str]) -> None:
        """Keep a left-out record that holds tool blocks (``uid`` was asked :meth:`of` first)."""
        first = self._first.get(uid)
        if first is not None:
            self._held.setdefault(first, []).append((line, uses, answers))

    def explain(self) -> dict[int, str]:
        """Each held record's line → why its branch was left out and where its calls went."""
        out: dict[int, str] = {}
        for first, held in self._held.items():
            text = self._explained(first, held)
            for line, _, _ in held:
                out[line] = text
        return out

    def _explained(self, first: str, held: list[Held]) -> str:
        reason = self._memo[first]
        start = self.chain.line(first)
        if reason == RETRIED:
            what = f"a retried response (line {start})"
        elif reason == ABANDONED:
            what = f"an abandoned response (line {start})"
        else:
            what = f"{reason}, from line {start}"
        went_on = self._went_on.get(first)
        if went_on is not None:
            nxt = self.chain.by_uuid[went_on]
            at = self.chain.line(went_on)
            parent = self.chain.parent(self.chain.by_uuid[first])
            if reason == RETRIED:
                what += f": the same request was answered again at line {at}"
            else:
                from_line = self.chain.line(parent) if parent else 0
                what += (
                    f": the conversation went on from line {from_line} with the "
                    f"{_kind_of(nxt)} at line {at}"
                )
        uses = list(dict.fromkeys(t for _, ids, _ in held for t in ids))
        ran = {t: line for line, _, answers in held for t in answers if t in uses}
        if uses and ran:
            lines = ", ".join(str(n) for n in sorted(set(ran.values())))
            calls = (
                f"{len(ran)} of its {len(uses)} tool call(s) ran (result lines {lines}) and no "
                "later request held them"
            )
        elif uses:
            calls = f"its {len(uses)} tool call(s) never ran"
        else:
            calls = "results of calls made elsewhere"
        return f"{what}; {calls}"


def _kind_of(rec: dict[str, Any]) -> str:
    """A record as the explanation names it: a prompt, a tool result, a response."""
    if rec.get("type") == "assistant":
        return "response"
    if rec.get("type") == "user":
        return "tool result" if tool_result_ids(rec) else "prompt"
    return f"{rec.get('type')} record"
