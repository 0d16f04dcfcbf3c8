"""Permissions: rules, scripted answers, and where the user's feedback ends up.

The chapter's point: feedback given when *approving* a call rides in the same user message as the
``tool_result``, as a ``text`` block right after it (``acceptFeedback``); feedback given when
*rejecting* becomes the error result itself, and the loop goes on so the model can answer it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tracer.agent.permissions import (
    REJECT_MESSAGE,
    REJECT_MESSAGE_WITH_REASON_PREFIX,
    Permissions,
    ScriptedDecision,
    rule_matches,
)
from tracer.agent.tool_checks import CANCEL_MESSAGE


@pytest.mark.parametrize(
    ("rule", "tool", "command", "matches"),
    [
        ("Bash(git status:*)", "Bash", "git status", True),
        ("Bash(git status:*)", "Bash", "git status --short", True),
        ("Bash(git status:*)", "Bash", "git statusx", False),
        ("Bash(git status:*)", "Bash", "git diff", False),
        ("Bash(git diff)", "Bash", "git diff", True),
        ("Bash(git diff)", "Bash", "git diff HEAD", False),
        ("Bash", "Bash", "rm -rf /", True),
        ("Read", "Bash", "cat x", False),
        ("Read", "Read", None, True),
        ("Bash(git status:*)", "Read", None, False),
    ],
)
def test_rule_matching(rule: str, tool: str, command: str | None, matches: bool) -> None:
    tool_input = {"command": command} if command is not None else {"file_path": "x"}
    assert rule_matches(rule, tool, tool_input) is matches


def test_deny_beats_allow() -> None:
    perms = Permissions(allow=["Bash"], deny=["Bash(rm:*)"])
    denied = perms.check("Bash", {"command": "rm -rf build"})
    assert denied.decision == "deny" and denied.rule == "Bash(rm:*)" and not denied.allowed
    assert perms.check("Bash", {"command": "ls"}).decision == "allow"


def test_scripted_decisions_are_used_once_in_order() -> None:
    perms = Permissions(
        script=[ScriptedDecision("approve", "Bash(ls:*)", "careful"), ScriptedDecision("reject")]
    )
    first = perms.check("Bash", {"command": "ls"})
    assert (first.decision, first.source, first.feedback) == ("approve", "script", "careful")
    second = perms.check("Bash", {"command": "ls"})
    assert second.decision == "reject" and second.abort and second.message == REJECT_MESSAGE
    third = perms.check("Bash", {"command": "ls"})
    assert third.decision == "deny" and third.source == "no_terminal"


def test_an_asker_answers_when_nothing_else_does() -> None:
    asked: list[str] = []

    def asker(tool: str, tool_input: dict[str, Any]) -> tuple[Any, str | None]:
        asked.append(tool)
        return "reject", "use git log instead"

    decision = Permissions(asker=asker).check("Bash", {"command": "ls"})
    assert asked == ["Bash"]
    assert decision.source == "prompt" and not decision.abort
    assert decision.message == REJECT_MESSAGE_WITH_REASON_PREFIX + "use git log instead"


def test_approve_with_feedback_puts_a_text_block_after_the_tool_result(record: Any) -> None:
    rec = record(
        {
            "permissions": {
                "decisions": [{"decision": "approve", "feedback": "only the short form, please"}]
            },
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo hi"}}]},
                {"text": "ok"},
            ],
        }
    )
    permission = rec.one("permission")
    assert (permission.decision, permission.source) == ("approve", "script")
    wrap = rec.one("wrapping")
    assert wrap.feedback == "only the short form, please"
    message = rec.messages[wrap.message_uuid]
    assert [b["type"] for b in message.content] == ["tool_result", "text"]
    assert message.content[0]["content"] == "hi"
    assert message.content[1] == {"type": "text", "text": "only the short form, please"}
    # The same user message, blocks in that order, is what the model gets next.
    last = rec.requests()[1]["messages"][-1]
    # As sent: the same blocks, the newest one carrying the request's cache breakpoint.
    assert last["role"] == "user" and last["content"][-1]["cache_control"] == {"type": "ephemeral"}
    sent = [{k: v for k, v in b.items() if k != "cache_control"} for b in last["content"]]
    assert sent == message.content


def test_reject_with_feedback_is_an_error_result_and_the_loop_goes_on(record: Any) -> None:
    rec = record(
        {
            "permissions": {"decisions": [{"decision": "reject", "feedback": "don't touch that"}]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo hi"}}]},
                {"text": "understood"},
            ],
        }
    )
    block = rec.results()[0]
    assert block["is_error"] is True
    assert block["content"] == REJECT_MESSAGE_WITH_REASON_PREFIX + "don't touch that"
    assert rec.of("tool_start") == [], "a rejected call never runs"
    assert rec.terminal.reason == "completed" and rec.terminal.turn_count == 2
    assert len(rec.of("request")) == 2


def test_reject_without_feedback_aborts(record: Any) -> None:
    rec = record(
        {
            "permissions": {"decisions": [{"decision": "reject"}], "allow": ["Read"]},
            "responses": [
                {
                    "tool_use": [
                        {"name": "Bash", "input": {"command": "echo hi"}},
                        {"name": "Read", "input": {"file_path": "x"}},
                    ]
                },
                {"text": "never"},
            ],
        }
    )
    first, second = rec.results()
    assert first["content"] == REJECT_MESSAGE and first["is_error"] is True
    assert second["content"] == CANCEL_MESSAGE and second["is_error"] is True
    assert rec.terminal.reason == "aborted_tools"


def test_without_a_terminal_or_rule_the_call_is_denied(record: Any) -> None:
    rec = record(
        {
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo hi"}}]},
                {"text": "ok"},
            ]
        }
    )
    permission = rec.one("permission")
    assert (permission.decision, permission.source) == ("deny", "no_terminal")
    block = rec.results()[0]
    assert block["is_error"] is True and "no rule or scripted decision" in block["content"]
    assert not block["content"].startswith("<tool_use_error>")
    assert rec.of("tool_start") == []
    assert rec.terminal.reason == "completed"


def test_deny_rule_from_the_scenario(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "rm -f nothing"}}]},
                {"text": "ok"},
            ],
        }
    )
    permission = rec.one("permission")
    assert (permission.decision, permission.rule) == ("deny", "Bash(rm:*)")
    assert "denied by the rule Bash(rm:*)" in rec.results()[0]["content"]


@pytest.mark.parametrize(
    "command", ["git status && touch pwned", "git status ; touch pwned", "git status | sh"]
)
def test_a_prefix_rule_does_not_cover_a_chained_command(command: str) -> None:
    assert not rule_matches("Bash(git status:*)", "Bash", {"command": command})
