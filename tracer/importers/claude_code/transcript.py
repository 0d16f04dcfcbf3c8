"""Claude Code transcript records as internal messages, grouped by model call.

Claude Code writes one record per *internal* message: a streamed response becomes one
``assistant`` record per content block (all sharing ``message.id``), each tool result its own
``user`` record with the tool's raw output beside it (``toolUseResult``). This module turns the
records :mod:`~tracer.importers.claude_code.dag` kept into
:class:`~tracer.model.internal_messages.Message` objects (one record at a time, in
:mod:`~tracer.importers.claude_code.transcript_records`) and groups them: each ``message.id`` is one
model call (:class:`Response`), and everything after it until the next call (tool results,
interruptions, new prompts, compaction boundaries) is what that call led to.
"""

from __future__ import annotations

from dataclasses import field
from itertools import pairwise

from tracer.importers.claude_code.transcript_records import (
    api_error,
    to_message,
)
from tracer.importers.jsonl import Record
from tracer.importers.output import ImportReport
from tracer.model.internal_messages import Message
from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Boundary",
    "Response",
    "Transcript",
    "fold_errors_after_tools",
    "group_calls",
    "mark_resends",
    "prompt_tokens",
    "split_at_compactions",
]


@lean_dataclass
class Boundary:
    """A ``compact_boundary``: the history before it was replaced by a summary; or, with
    ``cleared`` in its data, a new root: the context was cleared and a new conversation begins."""

    data: dict[str, Any]


@lean_dataclass
class Response:
    """One model call: its assistant fragments and what followed until the next call."""

    message_id: str
    messages: list[Message] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    after: list[Message | Boundary] = field(default_factory=list)
    error: str | None = None
    """Set when the call failed: Claude Code wrote a ``<synthetic>`` API-error message instead
    of a response (``isApiErrorMessage``); the loop ends there with ``model_error``."""
    cut_off: bool = False
    """The stream broke off and the same request was sent again: the next response answers it
    (see :func:`mark_resends`)."""
    unwritten_input: int | None = None
    """Tokens of input this call's request held that the transcript never wrote (an estimate
    from the usage Claude Code recorded), or ``None``."""
    error_after: str | None = None
    """Set when Claude Code wrote an API-error notice after this response's ``tool_use``
    blocks (the output limit cut the stream after them) and ran the tools anyway (see
    :func:`fold_errors_after_tools`)."""

    def usage(self) -> dict[str, Any]:
        return (self.records[-1].get("message") or {}).get("usage") or {} if self.records else {}


def prompt_tokens(usage: dict[str, Any]) -> int:
    """Everything the request's prompt counted: fresh input, cache reads and cache writes."""
    from tracer.trace.tokens import count  # see mark_resends

    return sum(
        count(usage.get(k)) or 0
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )


def mark_resends(responses: list[Response]) -> None:
    """Two responses with nothing written between them are not two finished turns.

    The usage Claude Code copied onto each response tells which case it is. If the second
    request's prompt is no longer than the first's, the same request was sent again: the first
    stream broke off (its answer is a piece, often one short text block) and Claude Code kept
    the piece in the file. If it is longer by more than the first answer, the user wrote
    something in between that the transcript never got (the difference is its size).
    """
    for prev, nxt in pairwise(responses):
        if prev.after or prev.error or nxt.error or prev.cut_off:
            continue
        # Only two calls with nothing written between them get here, which few sessions hold:
        # an import loads tracer.trace.tokens (its three records, 1.4M instructions) for them.
        from tracer.trace.tokens import count

        before, after = prompt_tokens(prev.usage()), prompt_tokens(nxt.usage())
        if not before or not after:
            continue  # no usage recorded: nothing to tell the cases apart by
        if after <= before and not any(m.tool_uses() for m in prev.messages):
            prev.cut_off = True
        else:
            grown = after - before - (count(prev.usage().get("output_tokens")) or 0)
            if grown > 0:
                nxt.unwritten_input = grown


def fold_errors_after_tools(responses: list[Response]) -> list[Response]:
    """An API-error notice between a response's ``tool_use`` blocks and their results is no
    failed call of its own.

    When the output limit cut a response off after its tool calls had streamed whole, Claude
    Code (2.0.x) wrote a ``<synthetic>`` error record ("...exceeded the 32000 output token
    maximum") and then ran the calls all the same: their results hang off the error record and
    the next call answers them. Read as a failed call, the loop ended there and the results
    were lost. So when a failed call follows a response that has tool calls and nothing yet
    after them, and what follows the failure answers those calls, the notice joins the
    response's aftermath (the normalizer drops it from every request, as Claude Code does)."""
    out: list[Response] = []
    for resp in responses:
        prev = out[-1] if out else None
        if (
            resp.error is not None
            and prev is not None
            and prev.error is None
            and not prev.after
            and (asked := {str(b.get("id")) for m in prev.messages for b in m.tool_uses()})
            and any(
                str(b.get("tool_use_id")) in asked
                for m in resp.after
                if isinstance(m, Message)
                for b in m.blocks
                if b.get("type") == "tool_result"
            )
        ):
            prev.after = [*resp.messages, *resp.after]
            prev.error_after = resp.error
            continue
        out.append(resp)
    return out


def group_calls(
    active: list[Record],
    report: ImportReport,
    summary_roots: dict[str, str | None] | None = None,
    clear_roots: dict[str, str] | None = None,
    left_behind: list[dict[str, Any]] | None = None,
    unlinked: dict[str, str] | None = None,
) -> tuple[list[Message | Boundary], list[Response]]:
    """Assistant fragments grouped by ``message.id``; other messages follow the call before.

    A ``<synthetic>`` API-error message is a call of its own that failed (``Response.error``); a
    1.0.x summary root (``summary_roots``) gets the compaction boundary 1.0.x never wrote. A
    fragment ``left_behind`` (see :class:`~tracer.importers.claude_code.dag.ActivePath`) sends
    nothing, but its record joins its response's records: the usage Claude Code copied onto it is
    the whole response's. A boundary whose logical parent is not in the file (``unlinked``) says
    which message the history it replaced ended with (``previous_leaf``).
    """
    before: list[Message | Boundary] = []
    responses: list[Response] = []
    by_id: dict[str, Response] = {}
    seen: set[str | None] = set()  # the records' uuids, as rec.get gives them
    summary_roots = summary_roots or {}
    clear_roots = clear_roots or {}

    def follow(item: Message | Boundary) -> None:
        (responses[-1].after if responses else before).append(item)

    for _, rec in active:
        uid = rec.get("uuid")
        kind = rec.get("type")
        if uid in summary_roots:
            follow(
                Boundary(
                    {
                        "trigger": None,
                        "pre_tokens": None,
                        "logical_parent_uuid": summary_roots[uid],
                        "boundary": "none (1.0.x: the summary is a root record)",
                    }
                )
            )
        if uid in clear_roots:
            follow(Boundary({"cleared": True, "previous_leaf": clear_roots[uid]}))
        if kind == "system":
            meta = rec.get("compactMetadata") or {}
            data = {
                "trigger": meta.get("trigger"),
                "pre_tokens": meta.get("preTokens"),
                "logical_parent_uuid": rec.get("logicalParentUuid"),
            }
            if unlinked and uid in unlinked:
                data["previous_leaf"] = unlinked[uid]
            item: Message | Boundary = Boundary(data)
        else:
            if uid in seen:
                report.skip("duplicate records (same uuid)")
                continue
            seen.add(uid)
            item = to_message(rec)
        # Only an assistant record marked as one can be a failed call's notice (api_error says
        # None otherwise).
        error = api_error(rec)
        if error is not None and isinstance(item, Message):
            failed = Response(item.uuid, [item], [rec], error=error)
            responses.append(failed)
        elif (
            kind == "assistant"
            and isinstance(item, Message)
            and item.message_id
            and (rec.get("message") or {}).get("model") != "<synthetic>"
        ):
            resp = by_id.get(item.message_id)
            if resp is None:
                resp = by_id[item.message_id] = Response(item.message_id)
                responses.append(resp)
            resp.messages.append(item)
            resp.records.append(rec)
        else:
            follow(item)
    for rec in left_behind or ():
        resp = by_id.get(str((rec.get("message") or {}).get("id")))
        if resp is not None:
            resp.records.append(rec)
    return before, responses


def split_at_compactions(
    items: list[Message | Boundary],
) -> list[tuple[Boundary | None, list[Message]]]:
    """Split at compaction boundaries: ``[(None, first), (boundary, after it), ...]``."""
    out: list[tuple[Boundary | None, list[Message]]] = [(None, [])]
    for item in items:
        if isinstance(item, Boundary):
            out.append((item, []))
        else:
            out[-1][1].append(item)
    return out


@lean_dataclass
class Transcript:
    """A transcript read and analysed (:mod:`tracer.importers.claude_code.importer`), ready to be
    emitted (:mod:`tracer.importers.claude_code.journey`). It lives here, below both, so that
    neither module imports the other."""

    path: str
    before: list[Message | Boundary]
    responses: list[Response]
    calls: dict[str, tuple[str, Any, str]]
    links: dict[str, list[dict[str, Any]]]
    report: ImportReport
    source: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    children: dict[str, Transcript] = field(default_factory=dict)
    """Subagent runs, by the ``tool_use`` id of the Task call that ran them: nested loops."""
    depth: int = 0
    left_out: dict[int, str] = field(default_factory=dict)
    """Why each left-out record holding a tool block was left out, by line (for the count
    check: :attr:`tracer.importers.claude_code.dag.ActivePath.left_out`)."""
    missing_history: dict[str, Any] | None = None
    """Set when the file continues a conversation that starts elsewhere: the parent its first
    record names (``parent``) and the results that answer calls of that start (``answers``)."""


def missing_history_text(missing: dict[str, Any]) -> str:
    """What a file that continues a conversation lacks, said once (a note and the report)."""
    answers = missing["answers"]
    text = (
        f"this file continues a conversation that starts elsewhere: its first message's parent "
        f"{missing['parent']} is not in it (a session written to two files, or a file cut "
        "short), so each rebuilt request holds only what this file has"
    )
    if answers:
        text += (
            f"; {len(answers)} tool_result(s) answer tool_use blocks of that missing start "
            f"({', '.join(answers[:3])}): a gap in the file, not a fault of the loop"
        )
    return text
