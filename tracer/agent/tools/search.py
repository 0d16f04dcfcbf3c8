"""Glob and Grep: find files by name or by content, inside the workspace.

Mirrors Claude Code's ``GlobTool`` and ``GrepTool`` in spirit (both read-only and concurrency
safe), without ripgrep: a pure-Python walk is enough for a teaching workspace.

The walk is our own rather than ``Path.glob``: it never follows a symlinked folder (a link to
``/`` would walk the whole disk), and it keeps only files whose real path is inside the
workspace, so neither ``../../..`` nor a symlink can make these tools list or read outside it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure

_MAX_FILES = 100


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over ``/``-separated relative paths: ``*`` and ``?`` stay within one
    folder, ``**/`` spans any number of folders (none included), ``[...]`` is a class."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif end != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            out.append("[" + ("^" if negate else "") + re.escape(body[negate:]) + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _files(root: Path, ctx: ToolContext) -> Iterator[tuple[str, Path]]:
    """``(path relative to root, real path)`` of every file under ``root`` that really lies in
    the workspace; ``.git`` folders are skipped."""
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(names):
            full = Path(folder, name)
            if full.is_file() and ctx.inside(full):
                yield full.relative_to(root).as_posix(), Path(os.path.realpath(full))


def _shown(path: Path, ctx: ToolContext) -> str:
    return os.path.relpath(path, os.path.realpath(ctx.workspace))


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
        root = ctx.resolve(tool_input.get("path") or ".")
        regex = glob_regex(tool_input["pattern"])
        found = sorted(
            _shown(root / relative, ctx)
            for relative, _real in _files(root, ctx)
            if regex.match(relative)
        )
        return {
            "filenames": found[:_MAX_FILES],
            "numFiles": len(found),
            "truncated": len(found) > _MAX_FILES,
        }

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        text = "\n".join(output["filenames"]) if output["filenames"] else "No files found"
        if output["truncated"]:
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
        except re.error as exc:
            return f"Invalid regular expression: {exc}"
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        root = ctx.resolve(tool_input.get("path") or ".")
        if not root.is_dir():
            raise ToolFailure(f"Path is not a directory: {tool_input.get('path')}")
        regex = re.compile(tool_input["pattern"])
        only = glob_regex("**/" + (tool_input.get("glob") or "*"))
        matches = []
        for relative, real in sorted(_files(root, ctx), key=lambda f: f[0].split("/")):
            if only.match(relative):
                try:
                    if regex.search(real.read_text(encoding="utf-8")):
                        matches.append(_shown(root / relative, ctx))
                except (UnicodeDecodeError, OSError):
                    continue
        return {"mode": "files_with_matches", "filenames": matches, "numFiles": len(matches)}

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        if not output["filenames"]:
            text = "No files found"
        else:
            text = f"Found {output['numFiles']} files\n" + "\n".join(output["filenames"])
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
