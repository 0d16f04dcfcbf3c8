"""What became of a broken request, said at the end of a finding: refused, or patched first.

A finding of the result rules says what is wrong with a request; these notes say what became of
it. The API answers a request whose tool calls and results do not pair up with HTTP 400, and the
trace keeps that answer (:func:`refused_note` quotes it). Claude Code 2.1.88 never sends such a
request: ``ensureToolResultPairing`` patches it just before, so the note says that real Claude
Code would go on, and where this trace shows the patched request (:func:`pairing_note`). Each
comes in English and in Chinese, to end the finding's message in the same language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tracer.doctor.sent_requests import SentRequest
from tracer.model.internal_messages import MISSING_RESULT_MESSAGE


def pairing_note(
    requests: Sequence[SentRequest], request: SentRequest, ids: Iterable[str], lang: str = "en"
) -> str:
    """What Claude Code 2.1.88 does with this broken pairing, and where the trace shows it.

    ``ensureToolResultPairing`` patches the request before it is sent (a synthetic is_error
    result for an unanswered call, an orphan result stripped), so real Claude Code never
    gets this 400. When a later request of the trace carries the patch, name it.
    """
    wanted = set(ids)
    patched = next(
        (
            r
            for r in requests
            if r.index >= request.index
            and r.event.pairing
            and wanted & {*r.event.pairing.get("added", []), *r.event.pairing.get("stripped", [])}
        ),
        None,
    )
    if lang == "zh":
        where = (
            f"第{patched.number}次请求就是修补后真正发出的请求"
            if patched is not None
            else "这份轨迹里没有修补后的请求"
        )
        return (
            "；Claude Code 2.1.88 不会收到这个 400：ensureToolResultPairing 在发出前修补请求，"
            f"给没有回答的 tool_use 补上 is_error 结果“{MISSING_RESULT_MESSAGE}”，"
            f"删掉对不上号的结果，会话继续；{where}"
        )
    where = (
        f"request {patched.number} is the patched request it sends"
        if patched is not None
        else "this trace holds no patched request"
    )
    return (
        "; Claude Code 2.1.88 never gets this 400: ensureToolResultPairing patches the request "
        f'first (an is_error result "{MISSING_RESULT_MESSAGE}" for an unanswered tool_use, an '
        f"orphan result stripped) and the session goes on; {where}"
    )


def refused_note(request: SentRequest, lang: str = "en") -> str:
    """The API's answer when it refused ``request`` (empty when it did not)."""
    if not request.refused:
        return ""
    if lang == "zh":
        return f"；API 拒绝了这次请求：{request.refused}"
    return f"; the API refused it: {request.refused}"
