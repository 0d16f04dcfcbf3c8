"""The Bash tool called directly, and its mapping to a ``tool_result`` block (the first station).

``call`` gives the raw output (what becomes ``tool_use_result``), ``map_result`` the block the
model sees: stdout and stderr kept apart and joined for the model; exit code 1 an answer with its
own meaning for grep, diff, test and find (judged by a pipeline's last command, as 2.1.88 does)
and an error for any other command; a non-zero exit an error starting ``Exit code``; empty output
replaced as 2.1.88 replaces it; a timeout kills the whole process group.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.results import process_pre_mapped_tool_result_block
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool

# The ctx fixture (a fresh workspace) comes from tools_helpers.
pytest_plugins = ["tools_helpers"]


def _bash(ctx: ToolContext, command: str, **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    tool = BashTool()
    output = tool.call({"command": command, **extra}, ctx)
    return output, tool.map_result(output, "toolu_x")


def test_bash_keeps_stdout_and_stderr_apart_and_joins_them_for_the_model(ctx: ToolContext) -> None:
    output, block = _bash(ctx, "echo out; echo err >&2")
    assert output["stdout"] == "out\n" and output["stderr"] == "err\n"
    assert output["exit_code"] == 0 and output["interrupted"] is False
    assert block == {
        "type": "tool_result",
        "content": "out\nerr",
        "is_error": False,
        "tool_use_id": "toolu_x",
    }


@pytest.mark.parametrize(
    ("command", "meaning"),
    [
        ("grep -q nothing a.txt", "No matches found"),
        ("diff a.txt b.txt", "Files differ"),
        ("test 1 = 2", "Condition is false"),
        ("[ 1 = 2 ]", "Condition is false"),
        ("find a.txt missing-dir", "Some directories were inaccessible"),
        # 2.1.88 judges a pipeline or list by its last command (commandSemantics.ts)
        ("cat a.txt | grep -q nothing", "No matches found"),
        ("true && diff a.txt b.txt 2>&1", "Files differ"),
    ],
)
def test_exit_one_is_an_answer_with_its_own_meaning_for_these_commands(
    ctx: ToolContext, command: str, meaning: str
) -> None:
    """Only grep-like tools mean "No matches found"; diff means the files differ, test false."""
    (ctx.workspace / "a.txt").write_text("alpha\n")
    (ctx.workspace / "b.txt").write_text("beta\n")
    output, block = _bash(ctx, command)
    assert output["exit_code"] == 1
    assert output["return_code_interpretation"] == meaning
    assert block["is_error"] is False and not str(block["content"]).startswith("Exit code")


@pytest.mark.parametrize("command", ["false", "grep -q x /dev/null | false"])
def test_exit_one_of_any_other_command_is_an_error(ctx: ToolContext, command: str) -> None:
    output, block = _bash(ctx, command)
    assert "return_code_interpretation" not in output
    assert block["is_error"] is True and block["content"] == "Exit code 1"


def test_bash_runs_in_the_workspace(ctx: ToolContext) -> None:
    output, _ = _bash(ctx, "pwd")
    assert Path(output["stdout"].strip()).resolve() == ctx.workspace.resolve()


def test_bash_non_zero_exit_is_an_error_starting_exit_code(ctx: ToolContext) -> None:
    output, block = _bash(ctx, "echo partial; echo broken >&2; exit 3")
    assert output["exit_code"] == 3
    assert block["is_error"] is True
    assert block["content"] == "Exit code 3\npartial\nbroken"


def test_grep_exit_one_is_not_an_error(ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("hello\n")
    output, block = _bash(ctx, "grep nothing-like-this f.txt")
    assert output["exit_code"] == 1
    assert block["is_error"] is False
    processed = process_pre_mapped_tool_result_block(block, BashTool(), None)
    assert processed.block["content"] == "(Bash completed with no output)"
    assert processed.empty_replaced


def test_empty_output_becomes_completed_with_no_output(ctx: ToolContext) -> None:
    _, block = _bash(ctx, "true")
    assert block["content"] == ""
    processed = process_pre_mapped_tool_result_block(block, BashTool(), None)
    assert processed.block == {
        "type": "tool_result",
        "content": "(Bash completed with no output)",
        "is_error": False,
        "tool_use_id": "toolu_x",
    }


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_bash_timeout_kills_the_whole_process_group(ctx: ToolContext) -> None:
    marker = "30.4242"  # an unusual sleep length to find the processes by
    output, block = _bash(ctx, f"sleep {marker} & sleep {marker}; echo never", timeout=300)
    assert output["interrupted"] is True and output["exit_code"] is None
    assert block["is_error"] is True
    assert "Command was aborted before completion" in block["content"]
    assert "never" not in block["content"]
    assert _processes_with(marker) == [], "a background child outlived the timeout"


def test_bash_schema_and_concurrency() -> None:
    tool = BashTool()
    assert tool.is_concurrency_safe({"command": "git status"})
    assert tool.is_concurrency_safe({"command": "ls -la"})
    assert not tool.is_concurrency_safe({"command": "ls; rm -rf x"})
    assert not tool.is_concurrency_safe({"command": "git commit -m x"})
    assert tool.persistence_threshold == 30_000
