"""A tool call that fails becomes an error result through the loop, worded as 2.1.88 words it.

These error paths live in the loop, so each is recorded through it, where it becomes the block
the model sees: ``validate_input``'s refusals (an Edit of a missing file, an Edit that cannot
apply, a Read of a folder, a binary file or a path outside the workspace) as
``<tool_use_error>``; a Read of a missing file as the untagged error its ``call`` throws; a
schema violation as an InputValidationError listing the issues in order; an unknown tool; an
exception inside a tool. The loop goes on after each; the registry names every tool.
"""

from __future__ import annotations

from typing import Any

import pytest

from tracer.agent.tools import schema_issues, tool_registry
from tracer.agent.tools.read import ReadTool
from tracer.agent.tools.search import GlobTool


def _loop_result(
    record: Any, files: dict[str, str], tool: str, tool_input: Any, setup: list[str] | None = None
) -> tuple[Any, dict[str, Any]]:
    rec = record(
        {
            "workspace": {"files": files, "setup": setup or []},
            "permissions": {"allow": [tool, "Read"]},
            "responses": [{"tool_use": [{"name": tool, "input": tool_input}]}, {"text": "ok"}],
        }
    )
    return rec, rec.results()[0]


def test_edit_of_a_missing_file_is_refused_before_it_runs(record: Any) -> None:
    # 2.1.88: FileEditTool's validateInput says "File does not exist. Note: your current
    # working directory is …", an early return, so the content is tagged.
    edit = {"file_path": "nowhere.py", "old_string": "a", "new_string": "b"}
    rec, block = _loop_result(record, {}, "Edit", edit)
    assert block["content"].startswith(
        "<tool_use_error>File does not exist. Note: your current working directory is "
    )
    assert rec.one("tool_run").error_kind == "validate_input"


def test_read_of_a_missing_file_throws_an_untagged_error(record: Any) -> None:
    # 2.1.88: FileReadTool's call() throws "File does not exist. Note: your current working
    # directory is …" and toolExecution.ts's catch sends it as it is, with no tag.
    rec, block = _loop_result(record, {}, "Read", {"file_path": "missing.txt"})
    assert block["is_error"] is True
    assert block["content"].startswith(
        "File does not exist. Note: your current working directory is "
    )
    assert block["content"].endswith(".") and "<tool_use_error>" not in block["content"]
    assert rec.one("tool_run").error_kind == "exception"


@pytest.mark.parametrize(
    ("file_path", "setup", "expected"),
    [
        ("sub", ["mkdir sub"], "sub is a directory"),
        ("blob.bin", ["printf 'a\\0b' > blob.bin"], "cannot read binary files"),
        ("../outside.txt", [], "outside the session's workspace"),
    ],
    ids=["directory", "binary", "outside"],
)
def test_read_refusals_are_tool_use_errors(
    record: Any, file_path: str, setup: list[str], expected: str
) -> None:
    rec, block = _loop_result(record, {}, "Read", {"file_path": file_path}, setup)
    assert block["is_error"] is True
    assert block["content"].startswith("<tool_use_error>")
    assert block["content"].endswith("</tool_use_error>")
    assert expected in block["content"]
    assert rec.terminal.reason == "completed", "the loop goes on after a refused call"


@pytest.mark.parametrize(
    ("edit", "read_first", "expected"),
    [
        ({"old_string": "absent", "new_string": "z"}, True, "String to replace not found in file."),
        ({"old_string": "dup", "new_string": "z"}, True, "Found 2 matches"),
        (
            {"old_string": "one", "new_string": "one"},
            True,
            "No changes to make: old_string and new_string are exactly the same.",
        ),
        ({"old_string": "one", "new_string": "two"}, False, "File has not been read yet."),
    ],
    ids=["not-found", "several-matches", "identical", "not-read-first"],
)
def test_edit_refusals_are_tool_use_errors(
    record: Any, edit: dict[str, str], read_first: bool, expected: str
) -> None:
    uses = [{"name": "Read", "input": {"file_path": "f.txt"}}] if read_first else []
    uses.append({"name": "Edit", "input": {"file_path": "f.txt", **edit}})
    rec = record(
        {
            "workspace": {"files": {"f.txt": "one dup dup\n"}},
            "permissions": {"allow": ["Read", "Edit"]},
            "responses": [{"tool_use": uses}, {"text": "ok"}],
        }
    )
    block = rec.results()[-1]
    assert block["is_error"] is True
    assert block["content"].startswith("<tool_use_error>") and expected in block["content"]
    assert rec.terminal.reason == "completed"


def test_schema_issues_lists_missing_unexpected_and_wrong_types() -> None:
    issues = schema_issues(ReadTool.input_schema, {"offset": "3", "limit": True, "colour": "red"})
    # In formatZodValidationError's order: missing, unexpected, then wrong types.
    assert issues == [
        "The required parameter `file_path` is missing",
        "An unexpected parameter `colour` was provided",
        "The parameter `offset` type is expected as `integer` but provided as `string`",
        "The parameter `limit` type is expected as `integer` but provided as `boolean`",
    ]
    assert schema_issues(ReadTool.input_schema, {"file_path": "x", "offset": 2}) == []


def test_schema_violation_becomes_an_input_validation_error(record: Any) -> None:
    rec, block = _loop_result(record, {}, "Read", {"offset": "3", "colour": "red"})
    assert block["is_error"] is True
    content = block["content"]
    assert content.startswith(
        "<tool_use_error>InputValidationError: Read failed due to the following issues:\n"
    )
    assert content.endswith("</tool_use_error>")
    assert "The required parameter `file_path` is missing" in content
    assert "An unexpected parameter `colour` was provided" in content
    assert (
        "The parameter `offset` type is expected as `integer` but provided as `string`" in content
    )
    assert rec.one("tool_run").error_kind == "input_validation"
    assert rec.of("tool_start") == [] and rec.of("permission") == []
    _, one = _loop_result(record, {}, "Read", {})
    assert "Read failed due to the following issue:\nThe required" in one["content"]


def test_unknown_tool(record: Any) -> None:
    rec = record({"responses": [{"tool_use": [{"name": "Teleport", "input": {}}]}, {"text": "ok"}]})
    block = rec.results()[0]
    assert block["content"] == (
        "<tool_use_error>Error: No such tool available: Teleport</tool_use_error>"
    )
    assert block["is_error"] is True
    assert rec.terminal.reason == "completed"


def test_an_exception_inside_a_tool_is_an_error_result(record: Any, monkeypatch: Any) -> None:
    def explode(self: Any, tool_input: Any, ctx: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(GlobTool, "call", explode)
    rec = record(
        {
            "permissions": {"allow": ["Glob", "Bash"]},
            "responses": [
                {"tool_use": [{"name": "Glob", "input": {"pattern": "*"}}]},
                {"tool_use": [{"name": "Bash", "input": {"command": "echo still here"}}]},
                {"text": "ok"},
            ],
        }
    )
    broken, fine = rec.results()
    assert broken["is_error"] is True
    assert "disk on fire" in broken["content"]
    assert rec.of("tool_run")[0].error_kind == "exception"
    assert fine["content"] == "still here"
    assert rec.terminal.reason == "completed" and rec.terminal.turn_count == 3


def test_registry_names_every_tool() -> None:
    assert list(tool_registry()) == ["Bash", "Read", "Edit", "Write", "Glob", "Grep"]
    assert list(tool_registry(["Read"])) == ["Read"]
    with pytest.raises(KeyError):
        tool_registry(["Nope"])
