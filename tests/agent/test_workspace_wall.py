"""The workspace is a wall: no tool, scenario file, tool id or ``--workspace`` gets past it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.results import maybe_persist_large_tool_result, safe_file_stem
from tracer.agent.tools import ToolContext
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.edit import EditTool, WriteTool
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.read import ReadTool
from tracer.agent.tools.search import GlobTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A workspace with one file, a secret file beside it, and a symlink to ``/``."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "mine.txt").write_text("needle inside\n")
    (tmp_path / "secret.txt").write_text("needle outside\n")
    (ws / "root").symlink_to("/")
    (ws / "up").symlink_to(tmp_path)
    return ToolContext(workspace=ws)


@pytest.mark.parametrize(
    "pattern, path",
    [("../*", None), ("../../../*", None), ("*", ".."), ("up/*", None), ("**/*.txt", None)],
)
def test_glob_lists_nothing_outside(ctx: ToolContext, pattern: str, path: str | None) -> None:
    tool_input = {"pattern": pattern, **({"path": path} if path else {})}
    try:
        found = GlobTool().call(tool_input, ctx)["filenames"]
    except ToolFailure as failure:
        assert "outside the session's workspace" in failure.content
        return
    assert all(not name.startswith("..") and "secret" not in name for name in found), found


def test_glob_still_finds_what_is_inside(ctx: ToolContext) -> None:
    assert GlobTool().call({"pattern": "**/*.txt"}, ctx)["filenames"] == ["mine.txt"]


def test_grep_reads_nothing_outside_and_does_not_walk_a_link_to_root(ctx: ToolContext) -> None:
    found = GrepTool().call({"pattern": "needle"}, ctx)
    assert found["filenames"] == ["mine.txt"]
    with pytest.raises(ToolFailure, match="outside"):
        GrepTool().call({"pattern": "needle", "path": "../"}, ctx)
    with pytest.raises(ToolFailure, match="outside"):
        GrepTool().call({"pattern": "root", "path": "root/etc"}, ctx)


def test_a_link_to_a_file_inside_still_counts(ctx: ToolContext) -> None:
    (ctx.workspace / "alias.txt").symlink_to(ctx.workspace / "mine.txt")
    assert GrepTool().call({"pattern": "needle"}, ctx)["filenames"] == ["alias.txt", "mine.txt"]


@pytest.mark.parametrize("path", ["../secret.txt", "up/secret.txt", "root/etc/hostname"])
def test_read_refuses_paths_that_resolve_outside(ctx: ToolContext, path: str) -> None:
    assert "outside the session's workspace" in (
        ReadTool().validate_input({"file_path": path}, ctx) or ""
    )


def test_read_refuses_a_fifo_instead_of_hanging(ctx: ToolContext) -> None:
    os.mkfifo(ctx.workspace / "pipe")
    assert "not a regular file" in (ReadTool().validate_input({"file_path": "pipe"}, ctx) or "")


def test_every_tool_refuses_a_hard_link_to_a_file_outside(ctx: ToolContext) -> None:
    outside = ctx.workspace.parent / "secret.txt"
    os.link(outside, ctx.workspace / "linked.txt")
    assert "hard links" in (ReadTool().validate_input({"file_path": "linked.txt"}, ctx) or "")
    with pytest.raises(ToolFailure, match="hard links"):
        ReadTool().call({"file_path": "linked.txt"}, ctx)
    grep = GrepTool().call({"pattern": "needle outside"}, ctx)
    assert grep["filenames"] == [] and grep["skipped"] == 1
    # As if it had been read before it became a link: only the link is at issue.
    ctx.read_file_state[str(ctx.workspace / "linked.txt")] = 1e12
    edit = {"file_path": "linked.txt", "old_string": "needle", "new_string": "pin"}
    assert "hard links" in (EditTool().validate_input(edit, ctx) or "")
    with pytest.raises(ToolFailure, match="hard links"):
        EditTool().call(edit, ctx)  # checked again when it runs
    write = {"file_path": "linked.txt", "content": "overwritten"}
    assert "hard links" in (WriteTool().validate_input(write, ctx) or "")
    assert outside.read_text() == "needle outside\n"


def test_write_through_a_symlink_out_is_refused(ctx: ToolContext) -> None:
    reason = WriteTool().validate_input({"file_path": "up/new.txt", "content": "x"}, ctx)
    assert "outside the session's workspace" in (reason or "")


@pytest.mark.parametrize(
    "tool_use_id, stem",
    [
        ("toolu_01ABCdef_-9", "toolu_01ABCdef_-9"),
        ("../../etc/passwd", "______etc_passwd"),
        ("/abs", "_abs"),
        ("..", "tool_result"),
        ({"a": 1}, "__a___1_"),
    ],
)
def test_tool_use_ids_become_safe_file_names(tool_use_id: Any, stem: str) -> None:
    assert safe_file_stem(tool_use_id) == stem


def test_a_persisted_result_stays_in_its_folder_whatever_the_id(tmp_path: Path) -> None:
    results = tmp_path / "results"
    block = {"type": "tool_result", "tool_use_id": "../../escaped", "content": "x" * 100}
    processed = maybe_persist_large_tool_result(block, "Bash", 10, results)
    assert processed.persisted is not None
    saved = Path(processed.persisted["path"])
    assert saved.parent == results and saved.read_text() == "x" * 100
    assert not (tmp_path.parent / "escaped.txt").exists()


@pytest.mark.parametrize("name", ["../escape.txt", "/tmp/escape.txt", "a/../../escape.txt"])
def test_scenario_files_must_stay_in_the_workspace(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path, name: str
) -> None:
    scenario = write_scenario(
        {"workspace": {"files": {"ok.txt": "fine", name: "pwned"}}, "responses": [{"text": "x"}]}
    )
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(tmp_path / "t.jsonl"))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"tracer: {scenario}:") and "inside the workspace" in line
    assert not Path("/tmp/escape.txt").exists() and not (tmp_path / "escape.txt").exists()


def test_prepare_workspace_confines_files_even_without_the_loader(tmp_path: Path) -> None:
    from tracer.chapter.scenario import Scenario, Workspace
    from tracer.errors import UserError
    from tracer.record.workspace import SessionDirs, prepare_workspace

    dirs = SessionDirs(tmp_path / "session")
    dirs.workspace.mkdir(parents=True)
    scenario = Scenario(
        path=tmp_path / "s.yaml",
        name="s",
        title={},
        prompt="p",
        responses=[],
        workspace=Workspace(files={"../outside.txt": "x"}),
    )
    with pytest.raises(UserError, match="inside the workspace"):
        prepare_workspace(scenario, dirs)
    assert not (dirs.root / "outside.txt").exists()


@pytest.mark.parametrize("folder", ["/", "/etc", "/etc/ssl", "/proc", "/usr/bin", "/var", "~"])
def test_workspace_refuses_the_root_home_and_system_folders(tracer_here: Any, folder: str) -> None:
    path = os.path.expanduser(folder)
    if not os.path.isdir(path):
        pytest.skip(f"{path} does not exist here")
    proc = tracer_here(
        "record", "--prompt", "hi", "--workspace", path, env={"ANTHROPIC_API_KEY": "sk-ant-x"}
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("tracer: --workspace refuses")


def test_a_project_folder_is_copied_without_special_files(tmp_path: Path) -> None:
    from tracer.record.workspace_source import copy_source, refuse_source

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("print(1)\n")
    os.mkfifo(project / "fifo")
    (project / "link").symlink_to("/")
    ws = tmp_path / "ws"
    ws.mkdir()
    copy_source(refuse_source(project), ws)
    assert (ws / "src" / "a.py").read_text() == "print(1)\n"
    assert not (ws / "fifo").exists()
    assert (ws / "link").is_symlink()  # kept as a link; the tools refuse to follow it out
