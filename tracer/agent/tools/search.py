"""Glob, and the walk Grep shares with it: find files by name, inside the workspace.

Mirrors Claude Code's ``GlobTool`` in spirit (read-only and concurrency safe), without ripgrep: a
pure-Python walk is enough for a teaching workspace. Grep (:mod:`.grep`) gathers its files here.

Both walk from the folder's own descriptor (:mod:`.globbing`), never following a symlinked
folder, and bounded in entries and time. A symlinked *file* counts when, opened through the
workspace wall (:mod:`.wall`), it leads to a regular file inside.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import Any, ClassVar

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure
from tracer.agent.tools.globbing import WALK_SECONDS, Walk, compile_glob

_MAX_FILES = 100
TRUNCATED_WALK = (
    f"(The search stopped early: over {{entries}} entries or {WALK_SECONDS:.0f} s. "
    "Use a narrower path or pattern.)"
)


def workspace_files(
    walk: Walk, shown_root: str, ctx: ToolContext
) -> Iterator[tuple[str, int | None]]:
    """``(path relative to the searched folder, open descriptor or None)`` of each regular
    file that lies in the workspace; a descriptor only when ``ctx`` is opening (Grep)."""
    for relative, dir_fd, name, is_link in walk.files():
        if is_link:
            try:
                opened = ctx.open(os.path.join(shown_root, relative), "read")
            except ToolFailure:
                continue
            yield relative, opened.fd
            continue
        try:
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
            )
        except OSError:
            continue
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            continue
        yield relative, fd


def shown_path(shown_root: str, relative: str) -> str:
    return os.path.normpath(os.path.join(shown_root, relative))


def search_root(tool_input: dict[str, Any], ctx: ToolContext) -> tuple[Walk, str]:
    path = tool_input.get("path") or "."
    ctx.resolve(path)
    try:
        opened = ctx.open(path, "dir")
    except ToolFailure:
        raise ToolFailure(f"Path is not a directory: {tool_input.get('path')}") from None
    real_ws = os.path.realpath(ctx.workspace)
    return Walk(opened.fd), os.path.relpath(opened.real, real_ws)


class GlobTool(Tool):
    name: ClassVar[str] = "Glob"
    description: ClassVar[str] = "Find files whose path matches a glob pattern such as **/*.py."
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The glob pattern"},
            "path": {"type": "string", "description": "Directory to search (default: workspace)"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only: ClassVar[bool] = True

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        walk, shown_root = search_root(tool_input, ctx)
        glob = compile_glob(tool_input["pattern"])
        found = []
        try:
            for relative, fd in workspace_files(walk, shown_root, ctx):
                if fd is not None:
                    os.close(fd)
                if glob.match(relative):
                    found.append(shown_path(shown_root, relative))
        finally:
            os.close(walk.top_fd)
        found.sort()
        output: dict[str, Any] = {
            "filenames": found[:_MAX_FILES],
            "numFiles": len(found),
            "truncated": len(found) > _MAX_FILES or walk.truncated,
        }
        if walk.truncated:
            output["walk_truncated"] = True
        return output

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        text = "\n".join(output["filenames"]) if output["filenames"] else "No files found"
        if output.get("walk_truncated"):
            text += "\n" + TRUNCATED_WALK.format(entries=f"{50_000:,}")
        elif output["truncated"]:
            text += "\n(Results are truncated. Consider using a more specific path or pattern.)"
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
