"""Grep's three output modes and its options, mapped to the text 2.1.88's Grep sends back.

Each expectation is what ripgrep prints for the same files and flags, put through 2.1.88's
``mapToolResultToToolResultBlockParam`` (``src/tools/GrepTool/GrepTool.ts``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.agent.tools import ToolContext, schema_issues
from tracer.agent.tools.grep import GrepTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("import os\n# TODO: load\ndef load():\n    return os.getcwd()\n")
    (ws / "lib").mkdir()
    (ws / "lib" / "util.py").write_text("# todo one\nx = 1\n# TODO two\n")
    (ws / "notes.md").write_text("TODO in markdown\n")
    return ToolContext(workspace=ws)


def grep(ctx: ToolContext, **tool_input: Any) -> str:
    tool = GrepTool()
    assert schema_issues(tool.input_schema, tool_input) == []
    assert tool.validate_input(tool_input, ctx) is None
    return tool.map_result(tool.call(tool_input, ctx), "t")["content"]


def test_files_with_matches_is_the_default(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="TODO") == "Found 3 files\napp.py\nlib/util.py\nnotes.md"
    assert grep(ctx, pattern="getcwd") == "Found 1 file\napp.py"
    assert grep(ctx, pattern="nowhere") == "No files found"


def test_content_numbers_lines_and_names_files(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="TODO", output_mode="content") == (
        "app.py:2:# TODO: load\nlib/util.py:3:# TODO two\nnotes.md:1:TODO in markdown"
    )
    assert grep(ctx, pattern="TODO", output_mode="content", glob="*.md", **{"-n": False}) == (
        "notes.md:TODO in markdown"
    )
    assert grep(ctx, pattern="nowhere", output_mode="content") == "No matches found"


def test_content_context_lines_and_group_separators(ctx: ToolContext) -> None:
    after = grep(ctx, pattern="TODO", output_mode="content", type="py", **{"-A": 1})
    assert after == ("app.py:2:# TODO: load\napp.py-3-def load():\n--\nlib/util.py:3:# TODO two")
    before = grep(ctx, pattern="getcwd", output_mode="content", **{"-B": 2})
    assert before == "app.py-2-# TODO: load\napp.py-3-def load():\napp.py:4:    return os.getcwd()"
    # -C and context are the same; context wins over -A/-B; overlapping groups merge.
    for field in ("-C", "context"):
        both = grep(ctx, pattern="x = 1", output_mode="content", **{field: 1, "-A": 5})
        assert both == "lib/util.py-1-# todo one\nlib/util.py:2:x = 1\nlib/util.py-3-# TODO two"


def test_context_is_ignored_outside_content_mode(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="getcwd", **{"-C": 3}) == "Found 1 file\napp.py"


def test_case_insensitive(ctx: ToolContext) -> None:
    out = grep(ctx, pattern="todo", output_mode="content", path="lib", **{"-i": True})
    assert out == "lib/util.py:1:# todo one\nlib/util.py:3:# TODO two"


def test_count_lists_matching_lines_per_file_and_sums_them(ctx: ToolContext) -> None:
    out = grep(ctx, pattern="(?i)todo", output_mode="count")
    assert out == (
        "app.py:1\nlib/util.py:2\nnotes.md:1\n\nFound 4 total occurrences across 3 files."
    )
    one = grep(ctx, pattern="getcwd", output_mode="count")
    assert one == "app.py:1\n\nFound 1 total occurrence across 1 file."
    none = grep(ctx, pattern="nowhere", output_mode="count")
    assert none == "No matches found\n\nFound 0 total occurrences across 0 files."


def test_head_limit_and_offset_page_every_mode(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="TODO", head_limit=2) == "Found 2 files limit: 2\napp.py\nlib/util.py"
    assert grep(ctx, pattern="TODO", head_limit=2, offset=2) == ("Found 1 file offset: 2\nnotes.md")
    assert grep(ctx, pattern="TODO", head_limit=3) == (
        "Found 3 files\napp.py\nlib/util.py\nnotes.md"  # nothing cut: no limit shown
    )
    content = grep(ctx, pattern="TODO", output_mode="content", head_limit=1, offset=1)
    assert content == (
        "lib/util.py:3:# TODO two\n\n[Showing results with pagination = limit: 1, offset: 1]"
    )
    count = grep(ctx, pattern="TODO", output_mode="count", head_limit=1)
    assert count == "app.py:1\n\nFound 1 total occurrence across 1 file. with pagination = limit: 1"


def test_the_default_head_limit_is_250_and_zero_means_all(ctx: ToolContext) -> None:
    (ctx.workspace / "many.txt").write_text("hit\n" * 300)
    lines = grep(ctx, pattern="hit", output_mode="content").split("\n")
    assert len(lines) == 250 + 2 and lines[-1] == "[Showing results with pagination = limit: 250]"
    everything = grep(ctx, pattern="hit", output_mode="content", head_limit=0)
    assert everything.count("\n") == 299 and everything.endswith("many.txt:300:hit")


def test_glob_splits_and_expands_braces_and_type_picks_files(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="TODO", glob="*.{md,txt}") == "Found 1 file\nnotes.md"
    assert grep(ctx, pattern="TODO", glob="*.md, app.*") == "Found 2 files\napp.py\nnotes.md"
    assert grep(ctx, pattern="TODO", glob="!*.py") == "Found 1 file\nnotes.md"
    assert grep(ctx, pattern="TODO", type="md") == "Found 1 file\nnotes.md"
    assert grep(ctx, pattern="TODO", type="no-such-type") == "No files found"


def test_lines_are_matched_one_at_a_time_unless_multiline(ctx: ToolContext) -> None:
    assert grep(ctx, pattern="^# TODO", output_mode="count") == (
        "app.py:1\nlib/util.py:1\n\nFound 2 total occurrences across 2 files."
    )
    assert grep(ctx, pattern=r"load\(\):\s+return") == "No files found"
    spanning = grep(ctx, pattern=r"load\(\):.*return", output_mode="content", multiline=True)
    assert spanning == "app.py:3:def load():\napp.py:4:    return os.getcwd()"


def test_a_long_line_is_omitted_as_max_columns_does(ctx: ToolContext) -> None:
    (ctx.workspace / "wide.txt").write_text("needle " * 100 + "\nshort\n")
    out = grep(ctx, pattern="needle", output_mode="content", glob="wide.txt", **{"-A": 1})
    assert out == "wide.txt:1:[Omitted long line with 100 matches]\nwide.txt-2-short"


def test_binary_files_are_skipped(ctx: ToolContext) -> None:
    (ctx.workspace / "blob.bin").write_bytes(b"TODO\0\x01\x02")
    assert "blob.bin" not in grep(ctx, pattern="TODO")


def test_bad_modes_and_negative_numbers_are_refused(ctx: ToolContext) -> None:
    tool = GrepTool()
    assert "output_mode" in tool.validate_input({"pattern": "x", "output_mode": "lines"}, ctx)
    assert "-A" in tool.validate_input({"pattern": "x", "-A": -1}, ctx)
    assert schema_issues(tool.input_schema, {"pattern": "x", "head_limit": "3"}) == [
        "The parameter `head_limit` type is expected as `number` but provided as `string`"
    ]
