"""Before a tool runs: the checks that can refuse a call, and the result a refusal becomes.

Mirrors the front of Claude Code's ``services/tools/toolExecution.ts``: ``runToolUse`` (no such
tool; the turn already aborted, answered with ``CANCEL_MESSAGE``) and
``checkPermissionsAndCallTool`` (the input against the tool's schema, then the tool's own
``validateInput``, then the permission decision). A refused call never reaches the tool: it gets
an :class:`Outcome` that already holds its ``is_error`` block, and the runner
(:mod:`tracer.agent.execution`) maps and wraps it like any other result. Whether the block's
content carries the ``<tool_use_error>`` tag depends on the kind
(:mod:`tracer.chapter.error_paths`): schema and ``validate_input`` refusals are tagged, a permission
refusal is a message for the model and is not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tracer.agent.permissions import Decision
from tracer.agent.tools import Tool, ToolContext, schema_issues
from tracer.model.internal_messages import tool_use_error

CANCEL_MESSAGE = (
    "The user doesn't want to take this action right now. STOP what you are doing and wait for "
    "the user to tell you how to proceed."
)


@dataclass(slots=True)
class Outcome:
    """What became of a call: the raw output, and a block when it never reached the tool."""

    output: Any = None
    error_block: dict[str, Any] | None = None
    error_kind: str | None = None
    decision: Decision | None = None
    duration_ms: int | None = None


def cancelled() -> Outcome:
    """A call after the turn was aborted (a rejection without feedback, Ctrl-C): not run."""
    return refused(CANCEL_MESSAGE, "Error: " + CANCEL_MESSAGE, "aborted", tagged=False)


def check_input(tool: Tool | None, name: str, tool_input: Any, ctx: ToolContext) -> Outcome | None:
    """The refusal of a call to ``name`` with ``tool_input``, or ``None`` when it may go on to
    the permission check: is there such a tool, does the input fit its schema, and does the tool
    itself accept it?"""
    if tool is None:
        text = f"Error: No such tool available: {name}"
        return refused(text, text, "unknown_tool")
    issues = schema_issues(tool.input_schema, tool_input)
    if issues:
        # formatZodValidationError's heading: "issue" for one, "issues" for more.
        noun = "issues" if len(issues) > 1 else "issue"
        formatted = f"{tool.name} failed due to the following {noun}:\n" + "\n".join(issues)
        raw = json.dumps(issues, ensure_ascii=False)
        return refused(
            f"InputValidationError: {formatted}",
            f"InputValidationError: {raw}",
            "input_validation",
        )
    if reason := tool.validate_input(tool_input, ctx):
        return refused(reason, f"Error: {reason}", "validate_input")
    return None


def refused_by(decision: Decision) -> Outcome:
    """A call the permission decision did not allow."""
    # Permission refusals carry no <tool_use_error> tag: the message is for the model.
    outcome = refused(
        decision.message or "denied",
        f"Error: {decision.message}",
        "permission",
        tagged=False,
    )
    outcome.decision = decision
    return outcome


def error_block(content: str) -> dict[str, Any]:
    """An ``is_error`` result block; the runner fills in its ``tool_use_id``."""
    return {"type": "tool_result", "content": content, "is_error": True, "tool_use_id": ""}


def refused(content: str, raw: str, kind: str, *, tagged: bool = True) -> Outcome:
    """A call that never ran: ``content`` for the model, ``raw`` as its ``toolUseResult``."""
    return Outcome(
        output=raw,
        error_block=error_block(tool_use_error(content) if tagged else content),
        error_kind=kind,
    )
