"""Attacks on the workspace wall by a race: a process swaps a folder for a symlink to the
outside, over and over, while Writes and Reads run through it. Every tool opens once, from the
workspace's own descriptor, so no Write lands outside and no Read returns outside content,
whichever way each swap falls; odd paths give a message, never a traceback.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracer.agent.tools import ToolContext
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.edit import EditTool, WriteTool
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.read import ReadTool
from tracer.agent.tools.search import GlobTool

SWAPPER = r"""
import os, sys, time
ws, outside = sys.argv[1], sys.argv[2]
real, link, spare = f"{ws}/d", f"{ws}/d.link", f"{ws}/d.real"
os.symlink(outside, link)
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    try:
        os.rename(real, spare)      # the folder steps aside...
        os.rename(link, real)       # ...a link to the outside takes its name...
        os.rename(real, link)       # ...and back
        os.rename(spare, real)
    except OSError:
        pass
"""


@pytest.fixture
def places(tmp_path: Path) -> tuple[ToolContext, Path]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    (ws / "d" / "note.txt").write_text("inside\n")
    (outside / "note.txt").write_text("OUTSIDE SECRET\n")
    return ToolContext(workspace=ws), outside


def test_swapping_a_folder_for_a_symlink_wins_nothing(places: tuple[ToolContext, Path]) -> None:
    ctx, outside = places
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(ctx.workspace), str(outside), "3"]
    )
    reads = writes = 0
    try:
        # Race for 2.5 s, and on until a read and a write got through: on a busy machine a few
        # rounds may all meet the swapped link (bounded, in case they always do).
        end = time.monotonic() + 2.5
        give_up = end + 120
        while time.monotonic() < end or (not (reads and writes) and time.monotonic() < give_up):
            for tool, tool_input in (
                (ReadTool(), {"file_path": "d/note.txt"}),
                (WriteTool(), {"file_path": f"d/new-{writes}.txt", "content": "x"}),
                (GrepTool(), {"pattern": "SECRET", "path": "d"}),
                (GlobTool(), {"pattern": "**/*.txt", "path": "d"}),
            ):
                try:
                    out = tool.call(tool_input, ctx)
                except ToolFailure:
                    continue  # refused (or not there at that instant): fine
                text = str(out)
                assert "OUTSIDE SECRET" not in text
                if isinstance(tool, GrepTool):
                    assert out["filenames"] == []
                reads += isinstance(tool, ReadTool)
                writes += isinstance(tool, WriteTool)
    finally:
        swapper.kill()
        swapper.wait()
    assert sorted(p.name for p in outside.iterdir()) == ["note.txt"]  # nothing landed outside
    assert (outside / "note.txt").read_text() == "OUTSIDE SECRET\n"
    assert reads and writes  # the race was run, not refused whole


@pytest.mark.parametrize(
    "path", ["a\0b", "x" * 5000, "/" + "a/" * 3000, "d/../../outside/note.txt", "", "."]
)
def test_odd_paths_are_a_message_not_a_traceback(
    places: tuple[ToolContext, Path], path: str
) -> None:
    ctx, _ = places
    for tool, tool_input in (
        (ReadTool(), {"file_path": path}),
        (WriteTool(), {"file_path": path, "content": "x"}),
        (EditTool(), {"file_path": path, "old_string": "a", "new_string": "b"}),
    ):
        reason = tool.validate_input(tool_input, ctx)
        assert isinstance(reason, str) and reason, (tool.name, path)


def test_a_link_loop_is_refused(places: tuple[ToolContext, Path]) -> None:
    ctx, _ = places
    (ctx.workspace / "loop").symlink_to("loop")
    with pytest.raises(ToolFailure):
        ReadTool().call({"file_path": "loop"}, ctx)
    with pytest.raises(ToolFailure):
        WriteTool().call({"file_path": "loop/x.txt", "content": "x"}, ctx)


def test_a_link_that_stays_inside_still_works(places: tuple[ToolContext, Path]) -> None:
    ctx, _ = places
    (ctx.workspace / "alias").symlink_to(ctx.workspace / "d")
    (ctx.workspace / "rel").symlink_to("d/note.txt")
    assert ReadTool().call({"file_path": "alias/note.txt"}, ctx)["file"]["content"] == "inside\n"
    assert ReadTool().call({"file_path": "rel"}, ctx)["file"]["content"] == "inside\n"
    WriteTool().call({"file_path": "alias/made.txt", "content": "y"}, ctx)
    assert (ctx.workspace / "d" / "made.txt").read_text() == "y"
