"""The "how to check" line of each finding, from the guide's table of common errors.

``chapters/ch12/guide.yaml`` carries one ``common_errors`` row per rule id, with the check written
in Chinese and English (:meth:`tracer.chapter.guide.Guide.rule`). When the guide cannot be loaded (a
checkout without it, or a guide with a mistake in it) the doctor still works: it falls back to the
short hints below, so a finding always says where to look.
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the guide is loaded on the first hint asked for
    from tracer.chapter.guide_records import Guide

FALLBACK: dict[str, dict[str, str]] = {
    "result-not-returned": {
        "en": "Check that the wrapped result message is pushed (resultingMessages.push()) and "
        "appended before the next request. In real Claude Code look for "
        '"[Tool result missing due to internal error]": ensureToolResultPairing made it up.',
        "zh": "确认包装好的结果消息被 push 进 resultingMessages，并在下一次请求前拼进历史。"
        "在真实的 Claude Code 里，要找的是“[Tool result missing due to internal error]”："
        "那是 ensureToolResultPairing 补上的结果。",
    },
    "tool-use-id-mismatch": {
        "en": "Compare each tool_result's tool_use_id with the ids of the tool_use blocks in the "
        "assistant message right before it.",
        "zh": "逐个对比 tool_result 的 tool_use_id 与紧挨着的上一条 assistant 消息里 "
        "tool_use 的 id。",
    },
    "malformed-result": {
        "en": "Look at the block the mapping step produced: type and tool_use_id present "
        "(content and is_error may be left out), and is_error matching the content.",
        "zh": "查看翻译（mapping）步骤产出的块：type 和 tool_use_id 是否都在（content 和 is_error "
        "可以省略），is_error 是否与内容相符。",
    },
    "loop-not-ending": {
        "en": "Check when needsFollowUp becomes false: only a response without tool_use blocks "
        "should end the loop.",
        "zh": "检查 needsFollowUp 何时变为 false：只有不含 tool_use 的回复才该结束循环。",
    },
    "max-turns": {
        "en": "Compare maxTurns with the turn count: the check is next turn > maxTurns.",
        "zh": "对照 maxTurns 配置和 turnCount 计数："
        "判断条件是 nextTurnCount > maxTurns（严格大于）。",
    },
    "api-invariants": {
        "en": "Rebuild the request as sent: it starts with a user message, every tool_use is "
        "answered in the very next user message, and that message starts with its tool_result "
        "blocks, text after them. (Two messages with the same role in a row are not reported: "
        "the SDK says the API combines them, though 2.1.88's comments say it rejects an "
        "assistant message after another.)",
        "zh": "还原实际发出的请求：以用户消息开头；每个 tool_use 都在紧随其后的用户消息里得到回答；"
        "这条用户消息以 tool_result 块开头，文字排在后面。（相邻两条同角色的消息不报告："
        "SDK 说 API 会把它们合并，不过 2.1.88 的注释说 assistant 紧跟 assistant 会被拒绝。）",
    },
}


@lru_cache(maxsize=1)
def _guide() -> Guide | None:
    try:
        from tracer.chapter.guide import load_guide

        return load_guide()
    except Exception:  # no guide, or a broken one: the built-in hints still answer
        return None


def hint_for(rule: str) -> dict[str, str]:
    """``{"zh", "en"}``: the guide's check text for ``rule``, else the built-in one."""
    fallback = FALLBACK.get(rule, {"zh": "", "en": ""})
    guide = _guide()
    entry = None
    if guide is not None:
        try:
            entry = guide.rule(rule)
        except Exception:
            entry = None
    check = getattr(entry, "check", None) if entry is not None else None
    if not check:
        return dict(fallback)
    return {lang: str(check.get(lang) or fallback[lang]) for lang in ("zh", "en")}
