"""The file tools called directly: Read, Edit, Write, Glob and Grep, and the blocks they map to.

Read numbers lines with a tab, honours offset and limit, warns about an empty file or an offset
past the end, and appends the reminder 2.1.88 appends; Edit tells the model one sentence and keeps
the diff, replaces all only when asked, and refuses a file outside the workspace (a symlink
too); Write creates a file but needs a read before it overwrites one; Glob and Grep find files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.agent.tools import ToolContext
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.edit import EditTool, WriteTool
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.read import READ_REMINDER, ReadTool
from tracer.agent.tools.search import GlobTool

# The ctx fixture (a fresh workspace) comes from tools_helpers.
pytest_plugins = ["tools_helpers"]


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
