"""Glob and Grep: find files by name or by content, inside the workspace.

Mirrors Claude Code's ``GlobTool`` and ``GrepTool`` in spirit (both read-only and concurrency
safe), without ripgrep: a pure-Python walk is enough for a teaching workspace.

Both walk from the folder's own descriptor (:mod:`.globbing`), never following a symlinked
folder, and bounded in entries and time. A symlinked *file* counts when, opened through the
workspace wall (:mod:`.wall`), it leads to a regular file inside. Grep opens each file once,
refuses hard links (another name may be outside), skips files over :data:`GREP_MAX_FILE_BYTES`
and stops reading at :data:`GREP_MAX_TOTAL_BYTES`, and runs the pattern in a child process with a
deadline (:mod:`.grep_child`), so a pattern that backtracks forever costs ten seconds, not the
session.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import Any, ClassVar

import tracer.agent.tools.grep_child as grep_child
from tracer.agent.tools.base import Tool, ToolContext, ToolFailure
from tracer.agent.tools.globbing import WALK_SECONDS, Walk, compile_glob
from tracer.agent.tools.grep_child import GrepTimeout, matching
from tracer.agent.tools.wall import read_at_most

_MAX_FILES = 100
GREP_MAX_FILE_BYTES = 4 * 1024 * 1024
GREP_MAX_TOTAL_BYTES = 32 * 1024 * 1024
_TRUNCATED_WALK = (
    f"(The search stopped early: over {{entries}} entries or {WALK_SECONDS:.0f} s. "
    "Use a narrower path or pattern.)"
)


def _files(walk: Walk, shown_root: str, ctx: ToolContext) -> Iterator[tuple[str, int | None]]:
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


def _shown(shown_root: str, relative: str) -> str:
    return os.path.normpath(os.path.join(shown_root, relative))


def _root(tool_input: dict[str, Any], ctx: ToolContext) -> tuple[Walk, str]:
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
        walk, shown_root = _root(tool_input, ctx)
        glob = compile_glob(tool_input["pattern"])
        found = []
        try:
            for relative, fd in _files(walk, shown_root, ctx):
                if fd is not None:
                    os.close(fd)
                if glob.match(relative):
                    found.append(_shown(shown_root, relative))
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
            text += "\n" + _TRUNCATED_WALK.format(entries=f"{50_000:,}")
        elif output["truncated"]:
            text += "\n(Results are truncated. Consider using a more specific path or pattern.)"
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}


class GrepTool(Tool):
    name: ClassVar[str] = "Grep"
    description: ClassVar[str] = "List the files whose content matches a regular expression."
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "A Python regular expression"},
            "path": {"type": "string", "description": "Directory to search (default: workspace)"},
            "glob": {"type": "string", "description": "Only files matching this glob"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = 20_000
    read_only: ClassVar[bool] = True

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        try:
            re.compile(tool_input["pattern"])
        except (re.error, RecursionError, OverflowError, ValueError) as exc:
            return f"Invalid regular expression: {exc}"
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        walk, shown_root = _root(tool_input, ctx)
        only = compile_glob("**/" + (tool_input.get("glob") or "*"))
        names: list[str] = []
        contents: list[bytes] = []
        total, skipped = 0, 0
        try:
            for relative, fd in _files(walk, shown_root, ctx):
                assert fd is not None
                try:
                    if not only.match(relative):
                        continue
                    st = os.fstat(fd)
                    if st.st_nlink > 1 or st.st_size > GREP_MAX_FILE_BYTES:
                        skipped += 1  # another name may be outside; or too big to search
                        continue
                    if total + st.st_size > GREP_MAX_TOTAL_BYTES:
                        skipped += 1
                        continue
                    data = read_at_most(fd, GREP_MAX_FILE_BYTES)
                finally:
                    os.close(fd)
                total += len(data)
                names.append(_shown(shown_root, relative))
                contents.append(data)
        finally:
            os.close(walk.top_fd)
        try:
            hits = matching(tool_input["pattern"], contents)
        except GrepTimeout:
            raise ToolFailure(
                # the deadline is read when it passes (a test shortens it)
                f"Grep stopped after {grep_child.GREP_SECONDS:.0f} s: the pattern takes too long "
                "on these files (nested repetition such as (a+)+ can backtrack for ever). "
                "Simplify it."
            ) from None
        matches = sorted((names[i] for i in hits), key=lambda name: name.split("/"))
        output: dict[str, Any] = {
            "mode": "files_with_matches",
            "filenames": matches,
            "numFiles": len(matches),
        }
        if skipped:
            output["skipped"] = skipped
        if walk.truncated:
            output["walk_truncated"] = True
        return output

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        if not output["filenames"]:
            text = "No files found"
        else:
            text = f"Found {output['numFiles']} files\n" + "\n".join(output["filenames"])
        if output.get("skipped"):
            text += (
                f"\n({output['skipped']} files not searched: hard links, or larger than "
                f"{GREP_MAX_FILE_BYTES // (1024 * 1024)} MB, or past the "
                f"{GREP_MAX_TOTAL_BYTES // (1024 * 1024)} MB the search reads in all.)"
            )
        if output.get("walk_truncated"):
            text += "\n" + _TRUNCATED_WALK.format(entries=f"{50_000:,}")
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
