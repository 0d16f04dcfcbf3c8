"""One model call of a Claude Code transcript, as the journey's steps: answered, cut off, failed.

A transcript holds no request, only what came back, so each call is written as the live loop
(``queryLoop()`` in ``src/query.ts``) would have made it: ``turn_start``, the request rebuilt
from the internal list (**resending**), then the response and the follow-up decision
(:func:`model_call`). Two kinds of call did not run that way, and the transcript shows which:

* a stream that **broke off**: Claude Code kept the piece that came and sent the same request
  again (:func:`~tracer.importers.claude_code.transcript.mark_resends` finds it). The piece is
  recorded beside the conversation, the request gets a failed ``http_attempt``, and the next
  response answers the same request as its second attempt (:func:`cut_off_call`);
* a call whose response never came: Claude Code wrote an API-error notice instead, and the loop
  ends with ``model_error`` (:func:`failed_call`).

:func:`unfinished` says why a last call that asked for tools has no next request.
:mod:`tracer.importers.claude_code.journey` decides which of these each call was.
"""

from __future__ import annotations

from tracer.importers.builder import TraceBuilder
from tracer.importers.claude_code.transcript import Response
from tracer.model.internal_messages import Message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def model_call(b: TraceBuilder, resp: Response, resent: bool = False) -> list[dict[str, Any]]:
    """One model call: turn start, the rebuilt request, the response and its follow-up.

    ``resent``: the request already went out once and its stream broke off (:func:`cut_off_call`);
    this response answers it the second time, so no new turn or request is written."""
    recs = resp.records
    last = recs[-1]["message"]
    model = str(last.get("model", "unknown"))
    if not resent:
        b.start_turn()
        b.request({"model": model}, ["model", "messages"])
    # The last record that names a stop reason (usually the last record itself).
    stop = None
    for r in reversed(recs):
        stop = r["message"].get("stop_reason")
        if stop:
            break
    else:
        stop = None
    return b.response(
        message_id=resp.message_id,
        model=model,
        stop_reason=stop,
        # The record's own dict, not a copy: nothing changes a record once it is read, and the
        # event is encoded as it is written.
        usage=last.get("usage") or {},
        assistant=resp.messages,
        attempts=2 if resent else 1,
    )


def cut_off_call(b: TraceBuilder, resp: Response) -> None:
    """A request whose stream broke off: the piece that came is recorded, but it is no turn of
    the conversation (the next request, sent again, does not hold it)."""
    model = str(resp.records[-1]["message"].get("model", "unknown"))
    b.start_turn()
    b.request({"model": model}, ["model", "messages"])
    b.record(resp.messages)
    b.note(
        "cut_off",
        "the answer that broke off still cost tokens (its usage, as Claude Code recorded it)",
        data={
            "message_id": resp.message_id,
            "request_index": b.request_index,
            "usage": dict(resp.usage()),
        },
    )
    b.http_attempt(
        1,
        f"the stream broke off after {len(resp.messages)} content block(s); Claude Code kept "
        "the piece in the transcript and sent the same request again (the next answer's "
        "usage counts the same prompt)",
    )


def failed_call(b: TraceBuilder, resp: Response, model: str) -> None:
    """A call whose response never came: Claude Code wrote an API-error notice instead."""
    b.start_turn()
    b.request({"model": model}, ["model", "messages"])
    b.extend(resp.messages)  # the notice is for the user; normalizing never sends it
    b.end("model_error", resp.error)


def unfinished(uses: list[dict[str, Any]], after: list[Message]) -> str:
    """Why a loop that asked for tools has no next request in the transcript."""
    answered = {str(x.get("tool_use_id")) for m in after if m.has_tool_result() for x in m.blocks}
    missing = [u for u in uses if str(u.get("id")) not in answered]
    if missing:
        names = ", ".join(dict.fromkeys(str(u.get("name")) for u in missing))
        return (
            f"the transcript ends before the result of {len(missing)} of {len(uses)} tool "
            f"call(s) ({names}) was written: the session was stopped while the tool ran, "
            "or is still running"
        )
    return (
        "every tool result was written, but the next request was not: the session was "
        "stopped before it, or is still running"
    )
