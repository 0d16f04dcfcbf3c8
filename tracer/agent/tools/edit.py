"""Edit: replace an exact string in a file, and Write: create or overwrite a file.

Mirrors Claude Code's ``tools/FileEditTool`` and ``tools/FileWriteTool``. The chapter says Edit
"returns diff information"; that is true of its raw output (``tool_use_result`` keeps the whole
structured patch for the screen and the transcript), but the model is told one sentence. Both
refuse to touch a file the session has not Read first, or that changed since it was read.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, ClassVar

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure, refuse_hard_link

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Diff hunks shaped like the ``structuredPatch`` Claude Code keeps in ``toolUseResult``."""
    hunks: list[dict[str, Any]] = []
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        match = _HUNK.match(line)
        if match:
            a, b, c, d = match.groups()
            hunks.append(
                {
                    "oldStart": int(a),
                    "oldLines": int(b or 1),
                    "newStart": int(c),
                    "newLines": int(d or 1),
                    "lines": [],
                }
            )
        elif hunks:
            hunks[-1]["lines"].append(line)
    return hunks


def _must_have_read(path: Path, ctx: ToolContext) -> str | None:
    seen = ctx.read_file_state.get(str(path))
    if seen is None:
        return "File has not been read yet. Read it first before writing to it."
    if path.stat().st_mtime > seen:
        return (
            "File has been modified since read, either by the user or by a linter. "
            "Read it again before attempting to write it."
        )
    return None


def _writable(file_path: str, ctx: ToolContext) -> Path:
    """Checked again at call time: the file may have changed since ``validate_input``."""
    path = ctx.resolve(file_path)
    if reason := refuse_hard_link(path, file_path):
        raise ToolFailure(reason)
    return path


class EditTool(Tool):
    name: ClassVar[str] = "Edit"
    description: ClassVar[str] = (
        "Replace old_string with new_string in a file you have Read. old_string must match "
        "exactly once, unless replace_all is true."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Path of the file to change"},
            "old_string": {"type": "string", "description": "The exact text to replace"},
            "new_string": {"type": "string", "description": "The text to put in its place"},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence"},
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = 100_000

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        old, new = tool_input["old_string"], tool_input["new_string"]
        if old == new:
            return "No changes to make: old_string and new_string are exactly the same."
        try:
            path = ctx.resolve(tool_input["file_path"])
        except ToolFailure as failure:
            return failure.content
        if not path.is_file():
            return f"File does not exist: {tool_input['file_path']}"
        if reason := refuse_hard_link(path, tool_input["file_path"]):
            return reason
        if reason := _must_have_read(path, ctx):
            return reason
        text = path.read_text(encoding="utf-8")
        count = text.count(old)
        if count == 0:
            return f"String to replace not found in file.\nString: {old}"
        if count > 1 and not tool_input.get("replace_all"):
            return (
                f"Found {count} matches of the string to replace, but replace_all is false. "
                "To replace all occurrences, set replace_all to true. To replace only one "
                "occurrence, please provide more context to uniquely identify the instance.\n"
                f"String: {old}"
            )
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = _writable(tool_input["file_path"], ctx)
        original = path.read_text(encoding="utf-8")
        old, new = tool_input["old_string"], tool_input["new_string"]
        replace_all = bool(tool_input.get("replace_all"))
        updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
        path.write_text(updated, encoding="utf-8")
        ctx.read_file_state[str(path)] = path.stat().st_mtime
        return {
            "filePath": str(path),
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": structured_patch(original, updated),
            "userModified": False,
            "replaceAll": replace_all,
        }

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        path = output["filePath"]
        text = (
            f"The file {path} has been updated. All occurrences were successfully replaced."
            if output.get("replaceAll")
            else f"The file {path} has been updated successfully."
        )
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}


class WriteTool(Tool):
    name: ClassVar[str] = "Write"
    description: ClassVar[str] = (
        "Write a file in the workspace, creating it or replacing all of it. An existing file must "
        "be Read first."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Path of the file to write"},
            "content": {"type": "string", "description": "The whole new content"},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = 100_000

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        try:
            path = ctx.resolve(tool_input["file_path"])
        except ToolFailure as failure:
            return failure.content
        if path.is_dir():
            return f"{tool_input['file_path']} is a directory."
        if path.exists() and not path.is_file():
            return f"{tool_input['file_path']} is not a regular file."
        if reason := refuse_hard_link(path, tool_input["file_path"]):
            return reason
        return _must_have_read(path, ctx) if path.exists() else None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = _writable(tool_input["file_path"], ctx)
        original = path.read_text(encoding="utf-8") if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tool_input["content"], encoding="utf-8")
        ctx.read_file_state[str(path)] = path.stat().st_mtime
        return {
            "type": "update" if original is not None else "create",
            "filePath": str(path),
            "content": tool_input["content"],
            "structuredPatch": structured_patch(original or "", tool_input["content"]),
            "originalFile": original,
        }

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        path = output["filePath"]
        text = (
            f"File created successfully at: {path}"
            if output["type"] == "create"
            else f"The file {path} has been updated successfully."
        )
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
