"""Did every tool call of the source reach the trace? A count check, written into the import.

An import must never drop a tool call without a word (issue: whole stretches of real sessions
vanished once). After an import, every ``tool_use`` and ``tool_result`` block of the source is
counted (the main chain, inline sidechains and the subagent files that were read) and compared
with the calls the trace asks for (``follow_up``) and the results it runs (``tool_run``). What
differs is explained block by block: on a branch the session left, in a sidechain no Task call
ran, written twice, asked for but never answered. The check is an ``import_note`` (topic
``counts``) and a line of the import's summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tracer.importers.dag import tool_result_ids, tool_use_ids


@dataclass
class Tally:
    """What the trace holds, counted as events go by."""

    asked: set[str] = field(default_factory=set)
    ran: set[str] = field(default_factory=set)
    kept_uuids: set[str] = field(default_factory=set)

    def watch(self, emit: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def counting(event: Any) -> Any:
            kind = event.kind
            if kind == "follow_up":
                self.asked.update(event.tool_use_ids)
            elif kind == "tool_run":
                self.ran.add(event.tool_use_id)
            elif kind == "message":
                self.kept_uuids.add(event.uuid)
            return emit(event)

        return counting


def _why(rec: dict[str, Any], tally: Tally, nested: set[str]) -> str:
    if rec.get("uuid") in tally.kept_uuids:
        return "in the trace, but its call or result is not"
    if rec.get("isSidechain") and rec.get("uuid") not in nested:
        return "in sidechain records no Task call of this file ran"
    return "on records left out (see skipped)"


def check_counts(
    records: Iterable[dict[str, Any]], tally: Tally, nested: set[str] | None = None
) -> dict[str, Any]:
    """Source blocks vs trace calls, with every difference named."""
    nested = nested or set()
    uses: Counter[str] = Counter()
    results: Counter[str] = Counter()
    missing_uses: Counter[str] = Counter()
    missing_results: Counter[str] = Counter()
    seen_use: set[str] = set()
    seen_result: set[str] = set()
    for rec in records:
        if rec.get("type") not in ("user", "assistant"):
            continue  # progress records only mirror a subagent's messages
        for tid in tool_use_ids(rec):
            uses["blocks"] += 1
            if tid in seen_use:
                missing_uses["written twice (same id)"] += 1
            elif tid not in tally.asked:
                missing_uses[_why(rec, tally, nested)] += 1
            seen_use.add(tid)
        for tid in tool_result_ids(rec):
            results["blocks"] += 1
            if tid in seen_result:
                missing_results["written twice (same id)"] += 1
            elif tid not in tally.ran:
                missing_results[_why(rec, tally, nested)] += 1
            seen_result.add(tid)
    unanswered = len(tally.asked - seen_result)
    return {
        "source_tool_use": uses["blocks"],
        "source_tool_result": results["blocks"],
        "trace_tool_calls": len(tally.asked),
        "trace_tool_runs": len(tally.ran),
        "tool_use_not_imported": dict(missing_uses),
        "tool_result_not_imported": dict(missing_results),
        "calls_without_result": unanswered,
    }


def describe(counts: dict[str, Any]) -> str:
    """One line: the totals, then each difference and why."""
    text = (
        f"count check: {counts['source_tool_use']} tool_use and "
        f"{counts['source_tool_result']} tool_result blocks in the source; "
        f"{counts['trace_tool_calls']} tool calls and {counts['trace_tool_runs']} results "
        "in the trace"
    )
    gaps = [f"{n} tool_use {why}" for why, n in counts["tool_use_not_imported"].items()]
    gaps += [f"{n} tool_result {why}" for why, n in counts["tool_result_not_imported"].items()]
    if counts["calls_without_result"]:
        gaps.append(f"{counts['calls_without_result']} call(s) whose result was never written")
    return text + ("; not in the trace: " + ", ".join(gaps) if gaps else "; nothing missing")
