"""The pairing patch on the resending view: the request Claude Code sends beside the one it fixed.

Claude Code 2.1.88 does not send the history exactly as its loop built it: ``claude.ts`` runs
``ensureToolResultPairing`` after ``normalizeMessagesForAPI``, so a ``tool_use`` nobody answered
gets a made-up ``is_error`` result and a result that answers no call is stripped. A recording
marks such a request with ``pairing`` (see :class:`~tracer.trace.events.RequestSent`); a fault
scenario with ``send_unpatched`` also sends the request unpatched first, and the API refuses it.
This module writes both sides on the two resending steps, so a reader sees the bare API's HTTP
400 and, one step later, the request that Claude Code sends instead.
"""

from __future__ import annotations

from rich.text import Text

from tracer.model.internal_messages import MISSING_RESULT_MESSAGE, NO_CONTENT_MESSAGE
from tracer.view.attempts import attempt_rows
from tracer.view.i18n import in_lang
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from typing import Any

    from tracer.trace.events import RequestSent


def _refusal(index: StepIndex, request_index: int) -> str | None:
    step = index.request_step(request_index)
    if step is None:
        return None
    errors = [row.error for row in attempt_rows(index, step) if row.error]
    return errors[-1] if errors else None


def pairing_text(index: StepIndex, step: int, event: RequestSent, lang: str) -> Text | None:
    """What the patch changed in this request, or, on an unpatched request that a patched one
    follows, what happens next. ``None`` when neither applies."""
    pairing = getattr(event, "pairing", None)
    if isinstance(pairing, dict):
        return _patched(index, pairing, lang)
    following = index.request_step(event.request_index + 1)
    later = getattr(index.event(following), "pairing", None) if following is not None else None
    if isinstance(later, dict) and later.get("unpatched_request") == event.request_index:
        return Text(
            in_lang(
                lang,
                "Sent as the loop built it, without ensureToolResultPairing: the bare API's "
                "answer. Claude Code 2.1.88 never sends this; the next request is what it sends "
                "instead.\n",
                "这是循环原样拼出、没有经过 ensureToolResultPairing 的请求，用来看裸 API 的回答。"
                "Claude Code 2.1.88 从不发出它；下一次请求才是它真正发出的请求。\n",
            ),
            style="bold yellow",
        )
    return None


def _patched(index: StepIndex, pairing: dict[str, Any], lang: str) -> Text:
    out = Text(
        in_lang(
            lang,
            "ensureToolResultPairing patched this request before it went out (Claude Code "
            "2.1.88, claude.ts, after normalizeMessagesForAPI):\n",
            "ensureToolResultPairing 在发出前修补了这次请求（Claude Code 2.1.88，claude.ts，"
            "在 normalizeMessagesForAPI 之后）：\n",
        ),
        style="bold cyan",
    )
    for tool_id in pairing.get("added", []):
        out.append(
            in_lang(
                lang,
                f"  + {tool_id} had no result: an is_error one is made up, "
                f'"{MISSING_RESULT_MESSAGE}", first in the user message\n',
                f"  + {tool_id} 没有结果：在用户消息最前面补上一个 is_error 结果"
                f"“{MISSING_RESULT_MESSAGE}”\n",
            ),
            style="green",
        )
    for tool_id in pairing.get("stripped", []):
        out.append(
            in_lang(
                lang,
                f"  − the result for {tool_id} answers no call before it: stripped\n"
                if tool_id
                else "  − a result without a tool_use_id answers no call: stripped\n",
                f"  − 回答 {tool_id} 的结果对不上前面任何调用：删掉\n"
                if tool_id
                else "  − 一个没有 tool_use_id 的结果对不上任何调用：删掉\n",
            ),
            style="red",
        )
    if pairing.get("no_content"):
        out.append(
            in_lang(
                lang,
                f'  − a user message left empty is sent as "{NO_CONTENT_MESSAGE}", so the roles '
                "still alternate\n",
                f"  − 删空的用户消息换成“{NO_CONTENT_MESSAGE}”发出，角色仍然交替\n",
            ),
            style="red",
        )
    unpatched = pairing.get("unpatched_request")
    if isinstance(unpatched, int):
        refusal = _refusal(index, unpatched) or "HTTP 400"
        out.append(
            in_lang(
                lang,
                f"  Request {unpatched} is the same history unpatched; the API refused it: "
                f"{refusal}\n",
                f"  第{unpatched}次请求是未修补的同一段历史，API 拒绝了它：{refusal}\n",
            ),
            style="yellow",
        )
    out.append(
        in_lang(
            lang,
            "  The internal history keeps its hole: only the request is patched, every time.\n",
            "  内部历史里的缺口还在：修补的只是请求，每次发送都要补一次。\n",
        ),
        style="dim",
    )
    return out
