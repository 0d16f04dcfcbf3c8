"""Permissions: may this tool call run? Decided before the tool runs, recorded as a step.

A pure pre-call check (``check(tool, input) -> Decision``) like Claude Code's
``hasPermissionsToUseTool``: deny rules first, then allow rules, then ask. Asking means a scripted
decision from the scenario, else a prompt in the terminal, else (no terminal) a denial. The result
shapes follow ``toolExecution.ts`` and ``PermissionContext.ts``:

* approved with feedback → the feedback rides along as a ``text`` block after the ``tool_result``
  (the chapter's ``acceptFeedback``);
* rejected without feedback → ``REJECT_MESSAGE`` and the turn is aborted (``aborted_tools``);
* rejected with feedback → the feedback follows ``REJECT_MESSAGE_WITH_REASON_PREFIX`` and the loop
  goes on, so the model can answer it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tracer.text.printable import printable

REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)
REJECT_MESSAGE_WITH_REASON_PREFIX = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)

DecisionKind = Literal["allow", "approve", "reject", "deny"]
Source = Literal["rule", "prompt", "script", "no_terminal", "default"]


@dataclass(frozen=True, slots=True)
class Decision:
    decision: DecisionKind
    source: Source
    rule: str | None = None
    feedback: str | None = None
    message: str | None = None
    """What the model is told when the call does not run."""
    abort: bool = False
    """A rejection without feedback ends the turn."""

    @property
    def allowed(self) -> bool:
        return self.decision in ("allow", "approve")


@dataclass(frozen=True, slots=True)
class ScriptedDecision:
    """A decision a scenario makes in place of the user: for the next call matching ``rule``."""

    decision: Literal["approve", "reject"]
    rule: str | None = None
    feedback: str | None = None


_SHELL_SPLIT = re.compile(r"&&|\|\||;|\||\n|`|\$\(")


def subcommands(command: str) -> list[str]:
    """The simple commands a shell line runs: ``git status && rm x`` is two of them."""
    return [part.strip() for part in _SHELL_SPLIT.split(command) if part.strip()]


def _command_matches(spec: str, command: str) -> bool:
    if spec.endswith(":*"):
        prefix = spec[:-2]
        return command == prefix or command.startswith(prefix + " ")
    return command == spec


def rule_matches(rule: str, tool: str, tool_input: dict[str, Any], *, deny: bool = False) -> bool:
    """``Tool`` matches every call of the tool; ``Bash(git status:*)`` a command prefix;
    ``Bash(git diff)`` one exact command; ``Read(src/*)`` is not supported and matches nothing.

    A Bash line that chains commands (``&&``, ``;``, ``|``, ...) is allowed only when every one
    of them matches, and denied when any one does: ``git status && rm -rf x`` is not a
    ``git status``.
    """
    if "(" not in rule:
        return rule == tool
    name, _, spec = rule.partition("(")
    spec = spec.removesuffix(")")
    if name != tool:
        return False
    parts = subcommands(str(tool_input.get("command", ""))) or [""]
    matched = [_command_matches(spec, part) for part in parts]
    return any(matched) if deny else all(matched)


Asker = Callable[[str, dict[str, Any]], tuple[Literal["approve", "reject"], str | None]]


def terminal_asker(
    tool: str, tool_input: dict[str, Any]
) -> tuple[Literal["approve", "reject"], str | None]:
    """Ask on the terminal: approve or reject, each with optional feedback."""
    shown = tool_input.get("command") or tool_input.get("file_path") or tool_input
    print(f"\n{tool} wants to run: {printable(shown)}", file=sys.stderr)  # the model's words
    print(
        "  [y] approve   [Y] approve with feedback   [n] reject   [N] reject with feedback",
        file=sys.stderr,
    )
    try:
        while True:
            answer = input("> ").strip()
            if answer in ("y", "Y", "n", "N"):
                break
        feedback = input("feedback: ").strip() or None if answer in ("Y", "N") else None
    except EOFError:
        # Ctrl-D (or a closed stdin): nobody said yes, so the answer is no.
        print("(end of input: rejected)", file=sys.stderr)
        return "reject", None
    return ("approve" if answer.lower() == "y" else "reject"), feedback


@dataclass
class Permissions:
    """Rules and scripted answers for one session."""

    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    script: list[ScriptedDecision] = field(default_factory=list)
    asker: Asker | None = None
    """Who answers when no rule or script does; ``None`` means nobody (denied)."""

    def check(self, tool: str, tool_input: dict[str, Any]) -> Decision:
        for rule in self.deny:
            if rule_matches(rule, tool, tool_input, deny=True):
                return Decision(
                    "deny",
                    "rule",
                    rule=rule,
                    message=f"Permission to use {tool} has been denied by the rule {rule}.",
                )
        for rule in self.allow:
            if rule_matches(rule, tool, tool_input):
                return Decision("allow", "rule", rule=rule)
        for i, scripted in enumerate(self.script):
            if scripted.rule is None or rule_matches(scripted.rule, tool, tool_input):
                del self.script[i]
                return _answer(scripted.decision, scripted.feedback, "script")
        if self.asker is not None:
            answer, feedback = self.asker(tool, tool_input)
            return _answer(answer, feedback, "prompt")
        return Decision(
            "deny",
            "no_terminal",
            message=f"Permission to use {tool} has been denied: no rule or scripted decision "
            "allows it, and there was no one to ask.",
        )


def _answer(answer: Literal["approve", "reject"], feedback: str | None, source: Source) -> Decision:
    if answer == "approve":
        return Decision("approve", source, feedback=feedback)
    if feedback:
        return Decision(
            "reject",
            source,
            feedback=feedback,
            message=REJECT_MESSAGE_WITH_REASON_PREFIX + feedback,
        )
    return Decision("reject", source, message=REJECT_MESSAGE, abort=True)
