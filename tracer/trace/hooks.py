"""The chapter's three ``console.log`` debug lines, as lines of text.

Chapter 12 ("试试看") has the reader add three debug lines to Claude Code's source:

* in ``toolExecution.ts`` ``addToolResult``: ``[DEBUG] Tool result: <name> is_error: <bool>
  content length: <n>``;
* at the top of ``query.ts``'s ``while (true)``: ``[DEBUG] Loop turn: <turn> messages: <count>``;
* where ``needsFollowUp`` is decided: ``[DEBUG] needsFollowUp: <bool> tool_use blocks: <n>``.

``console.log`` joins its arguments with spaces and prints booleans as ``true``/``false``;
``undefined`` (a block without ``is_error``) prints as ``undefined``. The loop records each line as
a ``debug_hook`` event; ``--debug`` prints them live and ``tracer hooks`` prints them from a trace.
This module imports nothing heavy, so ``tracer hooks`` starts fast.

These are the book's debug lines (调试输出, ``console.log``); the book never calls them hooks. The
names ``debug_hook`` and ``tracer hooks`` are tracer's own, and have nothing to do with Claude
Code's hooks (the PreToolUse/PostToolUse commands a user configures).

In 2.1.88 only a tool call that returned normally reaches ``addToolResult`` (a command cut off
among them: Bash returns it with ``interrupted`` set). A refused input, an unknown tool, a refused
permission, a cancelled turn or a thrown error (a non-zero exit throws a ``ShellError``, caught in
``toolExecution.ts``) builds its own user message
(:mod:`tracer.chapter.error_paths` says which path builds which), so the book's first line would not
print for it. tracer prints it for every result, so a failure can be compared with
a success, and marks the line the real hook would not print (:func:`shown_line`).
"""

from __future__ import annotations

from collections.abc import Iterable

from tracer.model.internal_messages import content_length

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _js(value: Any) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tool_result_line(tool: str, block: dict[str, Any], length: int | None = None) -> str:
    """Hook 1, in ``addToolResult``: the block as the model will get it. ``length`` is the
    block's :func:`~tracer.model.internal_messages.content_length`, when the caller has it
    already."""
    if length is None:
        length = content_length(block.get("content"))
    is_error = _js(block.get("is_error"))
    return f"[DEBUG] Tool result: {tool} is_error: {is_error} content length: {length}"


def loop_turn_line(turn: int, message_count: int) -> str:
    """Hook 2, at the top of ``while (true)``: ``state.turnCount`` and ``state.messages.length``."""
    return f"[DEBUG] Loop turn: {turn} messages: {message_count}"


def needs_follow_up_line(needs_follow_up: bool, tool_use_blocks: int) -> str:
    """Hook 3, where the response has been read: the decision and the blocks behind it."""
    return f"[DEBUG] needsFollowUp: {_js(needs_follow_up)} tool_use blocks: {tool_use_blocks}"


TRACER_ONLY = {
    "en": "(tracer only: 2.1.88 does not reach addToolResult for this result)",
    "zh": "（仅 tracer 打印：2.1.88 处理这个结果时不经过 addToolResult）",
}


def shown_line(event: Any, lang: str = "en") -> str:
    """A recorded ``debug_hook`` line as shown to a reader, marked when only tracer prints it."""
    line = str(getattr(event, "line", ""))
    if getattr(event, "tracer_only", None):
        return f"{line}   {TRACER_ONLY.get(lang, TRACER_ONLY['en'])}"
    return line


def hook_lines(events: Iterable[Any], lang: str = "en") -> Iterable[str]:
    """The ``[DEBUG]`` lines recorded in a stream of events, in order (tracer-only ones marked)."""
    for event in events:
        if getattr(event, "kind", None) == "debug_hook":
            yield shown_line(event, lang)
