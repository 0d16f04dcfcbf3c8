"""Glob and Grep: find files by name or by content, inside the workspace.

Mirrors Claude Code's ``GlobTool`` and ``GrepTool`` in spirit (both read-only and concurrency
safe), without ripgrep: a pure-Python walk is enough for a teaching workspace.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure

_MAX_FILES = 100


def _visible(path: Path, root: Path) -> bool:
    return ".git" not in path.relative_to(root).parts


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
        found = sorted(
            str(p.relative_to(ctx.workspace))
            for p in root.glob(tool_input["pattern"])
            if p.is_file() and _visible(p, root)
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
        matches = []
        for p in sorted(root.rglob(tool_input.get("glob") or "*")):
            if p.is_file() and _visible(p, root):
                try:
                    if regex.search(p.read_text(encoding="utf-8")):
                        matches.append(str(p.relative_to(ctx.workspace)))
                except (UnicodeDecodeError, OSError):
                    continue
        return {"mode": "files_with_matches", "filenames": matches, "numFiles": len(matches)}

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        if not output["filenames"]:
            text = "No files found"
        else:
            text = f"Found {output['numFiles']} files\n" + "\n".join(output["filenames"])
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
