"""The tools and their own mappings to a ``tool_result`` block (the chapter's first station).

Most tests call a tool directly on a temporary workspace: ``call`` gives the raw output (what
becomes ``tool_use_result``), ``map_result`` the block the model sees. The error paths that live
in the loop (schema checks, unknown tools, ``validate_input``, exceptions) are recorded through
the loop, since that is where they become ``<tool_use_error>`` results.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.results import process_pre_mapped_tool_result_block
from tracer.agent.tools import ToolContext, schema_issues, tool_registry
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.bash import BashTool
from tracer.agent.tools.edit import EditTool, WriteTool
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.read import READ_REMINDER, ReadTool
from tracer.agent.tools.search import GlobTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ToolContext(workspace=ws)


def _bash(ctx: ToolContext, command: str, **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    tool = BashTool()
    output = tool.call({"command": command, **extra}, ctx)
    return output, tool.map_result(output, "toolu_x")


# -- Bash ----------------------------------------------------------------------------------------


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


# -- Read ----------------------------------------------------------------------------------------


def test_read_numbers_lines_with_a_tab(ctx: ToolContext) -> None:
    (ctx.workspace / "f.py").write_text("a = 1\n\nb = 2\n")
    tool = ReadTool()
    output = tool.call({"file_path": "f.py"}, ctx)
    # readFileInRange: the newline at the end starts a fourth, empty line, numbered too; the
    # mapping then appends the <system-reminder> block 2.1.88's mapping appends.
    assert output["file"]["totalLines"] == 4
    assert output["file"]["filePath"] == "f.py"  # as the model gave it
    content = tool.map_result(output, "t")["content"]
    assert content == "1\ta = 1\n2\t\n3\tb = 2\n4\t" + READ_REMINDER
    assert content.endswith("\n</system-reminder>\n") and "\n\n<system-reminder>\n" in content


def test_read_offset_and_limit(ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    tool = ReadTool()
    output = tool.call({"file_path": "f.txt", "offset": 4, "limit": 2}, ctx)
    assert tool.map_result(output, "t")["content"] == "4\tline 4\n5\tline 5" + READ_REMINDER
    past = tool.map_result(tool.call({"file_path": "f.txt", "offset": 50}, ctx), "t")
    assert "shorter than the provided offset (50). The file has 11 lines." in past["content"]
    # The empty line after the last newline alone is no content: the same warning.
    last = tool.map_result(tool.call({"file_path": "f.txt", "offset": 11}, ctx), "t")
    assert "shorter than the provided offset (11)" in last["content"]


def test_read_empty_file_warns(ctx: ToolContext) -> None:
    (ctx.workspace / "empty.txt").write_text("")
    tool = ReadTool()
    block = tool.map_result(tool.call({"file_path": "empty.txt"}, ctx), "t")
    assert block["content"].startswith(
        "<system-reminder>Warning: the file exists but the contents are empty."
    )


def test_read_is_safe_to_run_in_parallel_and_never_persisted() -> None:
    assert ReadTool().is_concurrency_safe({"file_path": "x"})
    assert ReadTool().persistence_threshold == float("inf")


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


# -- Edit and Write ------------------------------------------------------------------------------


def test_edit_tells_the_model_one_sentence_and_keeps_the_diff(ctx: ToolContext) -> None:
    path = ctx.workspace / "calc.py"
    path.write_text("def add(a, b):\n    return a - b\n")
    ReadTool().call({"file_path": "calc.py"}, ctx)
    tool = EditTool()
    edit = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    assert tool.validate_input(edit, ctx) is None
    output = tool.call(edit, ctx)
    block = tool.map_result(output, "t")
    # The file as the model named it (2.1.88: filePath is the input's file_path).
    assert block["content"] == "The file calc.py has been updated successfully."
    assert "is_error" not in block
    assert path.read_text() == "def add(a, b):\n    return a + b\n"
    hunk = output["structuredPatch"][0]
    assert "-    return a - b" in hunk["lines"] and "+    return a + b" in hunk["lines"]
    assert output["originalFile"] == "def add(a, b):\n    return a - b\n"


def test_edit_replace_all(ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("x x x\n")
    ReadTool().call({"file_path": "f.txt"}, ctx)
    edit = {"file_path": "f.txt", "old_string": "x", "new_string": "y", "replace_all": True}
    assert (
        EditTool()
        .validate_input({**edit, "replace_all": False}, ctx)
        .startswith("Found 3 matches of the string to replace, but replace_all is false.")
    )
    assert EditTool().validate_input(edit, ctx) is None
    block = EditTool().map_result(EditTool().call(edit, ctx), "t")
    assert "All occurrences were successfully replaced." in block["content"]
    assert (ctx.workspace / "f.txt").read_text() == "y y y\n"


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


def test_edit_outside_the_workspace_is_refused(ctx: ToolContext, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("keep me\n")
    edit = {"file_path": str(outside), "old_string": "keep", "new_string": "lose"}
    reason = EditTool().validate_input(edit, ctx)
    assert reason is not None and "outside the session's workspace" in reason
    with pytest.raises(ToolFailure):
        ctx.resolve(str(outside))
    link = ctx.workspace / "link.txt"
    link.symlink_to(outside)
    assert "outside" in (EditTool().validate_input({**edit, "file_path": "link.txt"}, ctx) or "")
    assert outside.read_text() == "keep me\n"


def test_write_creates_then_needs_a_read_to_overwrite(ctx: ToolContext) -> None:
    tool = WriteTool()
    new = {"file_path": "dir/new.txt", "content": "hello\n"}
    assert tool.validate_input(new, ctx) is None
    output = tool.call(new, ctx)
    assert output["type"] == "create"
    assert tool.map_result(output, "t")["content"] == "File created successfully at: dir/new.txt"
    assert (ctx.workspace / "dir" / "new.txt").read_text() == "hello\n"
    (ctx.workspace / "old.txt").write_text("old\n")
    assert "has not been read" in (
        tool.validate_input({"file_path": "old.txt", "content": "x"}, ctx) or ""
    )


# -- Glob and Grep -----------------------------------------------------------------------------


def test_glob_and_grep_find_files(ctx: ToolContext) -> None:
    (ctx.workspace / "a.py").write_text("import os\n")
    (ctx.workspace / "b.py").write_text("x = 1\n")
    (ctx.workspace / "c.txt").write_text("import nothing\n")
    glob = GlobTool()
    assert glob.map_result(glob.call({"pattern": "*.py"}, ctx), "t")["content"] == "a.py\nb.py"
    assert glob.map_result(glob.call({"pattern": "*.rs"}, ctx), "t")["content"] == "No files found"
    grep = GrepTool()
    found = grep.map_result(grep.call({"pattern": "^import", "glob": "*.py"}, ctx), "t")
    assert found["content"] == "Found 1 file\na.py"  # plural(), as 2.1.88
    assert grep.validate_input({"pattern": "("}, ctx).startswith("Invalid regular expression")


# -- the loop's own checks: schema, unknown tools, exceptions ---------------------------------


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
