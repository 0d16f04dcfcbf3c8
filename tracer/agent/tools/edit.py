"""Edit: replace an exact string in a file, and Write: create or overwrite a file.

Mirrors Claude Code's ``tools/FileEditTool`` and ``tools/FileWriteTool``. The chapter says Edit
"returns diff information"; that is true of its raw output (``tool_use_result`` keeps the whole
structured patch for the screen and the transcript), but the model is told one sentence. Both
refuse to touch a file the session has not Read first, or that changed since it was read, and
both open the file once, from the workspace's own descriptor (:mod:`.wall`).
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any, ClassVar

from tracer.agent.tools.base import FileMissing, Tool, ToolContext, ToolFailure
from tracer.agent.tools.read import FILE_NOT_FOUND_CWD_NOTE
from tracer.agent.tools.wall import Opened, read_at_most, replace_content

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


#: The largest file Edit and Write will change (and hold in memory, old and new).
MAX_EDIT_BYTES = 16 * 1024 * 1024


def _must_have_read(real: Path, mtime: float, ctx: ToolContext) -> str | None:
    seen = ctx.read_file_state.get(str(real))
    if seen is None:
        return "File has not been read yet. Read it first before writing to it."
    if mtime > seen:
        return (
            "File has been modified since read, either by the user or by a linter. "
            "Read it again before attempting to write it."
        )
    return None


def _text_of(opened: Opened, shown: str) -> str:
    if opened.st.st_size > MAX_EDIT_BYTES:
        raise ToolFailure(
            f"{shown} is larger than {MAX_EDIT_BYTES} bytes; tracer edits no file so big."
        )
    return read_at_most(opened.fd, MAX_EDIT_BYTES).decode("utf-8")


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
        shown = tool_input["file_path"]
        try:
            ctx.resolve(shown)
            with ctx.open(shown, "update") as opened:
                if reason := _must_have_read(opened.real, opened.st.st_mtime, ctx):
                    return reason
                text = _text_of(opened, shown)
        except FileMissing:
            # 2.1.88's validateInput, word for word up to the path (tagged: an early return).
            return f"File does not exist. {FILE_NOT_FOUND_CWD_NOTE} {ctx.workspace}."
        except ToolFailure as failure:
            return failure.content
        except OSError as exc:
            return f"{shown!r} cannot be edited: {exc.strerror}"
        except UnicodeDecodeError:
            return f"{shown} is not UTF-8 text."
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
        # Opened once (hard links and the way there checked on the descriptor), read, written.
        with ctx.open(tool_input["file_path"], "update") as opened:
            original = _text_of(opened, tool_input["file_path"])
            old, new = tool_input["old_string"], tool_input["new_string"]
            replace_all = bool(tool_input.get("replace_all"))
            updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
            replace_content(opened.fd, updated.encode("utf-8"))
            path = opened.real
            ctx.read_file_state[str(path)] = os.fstat(opened.fd).st_mtime
        return {
            # As the model gave it, as 2.1.88 reports it (``filePath: file_path``), not the
            # path it resolved to.
            "filePath": tool_input["file_path"],
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
        shown = tool_input["file_path"]
        try:
            path = ctx.resolve(shown)
            if path.is_dir():
                return f"{shown} is a directory."
            if not os.path.lexists(path):
                return None
            with ctx.open(shown, "update") as opened:
                return _must_have_read(opened.real, opened.st.st_mtime, ctx)
        except ToolFailure as failure:
            return failure.content
        except OSError as exc:  # a name too long, say: one line for the model, no traceback
            return f"{shown!r} cannot be written: {exc.strerror}"

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        shown, content = tool_input["file_path"], tool_input["content"]
        try:
            opened = ctx.open(shown, "create", make_parents=True)
            original = None
        except ToolFailure:
            # It exists (or a link stands in its place): open what is there, checked.
            opened = ctx.open(shown, "update")
            original = ""
        with opened:
            if original is not None:
                original = _text_of(opened, shown)
            replace_content(opened.fd, content.encode("utf-8"))
            path = opened.real
            ctx.read_file_state[str(path)] = os.fstat(opened.fd).st_mtime
        return {
            "type": "update" if original is not None else "create",
            "filePath": shown,  # as the model gave it (2.1.88's filePath: file_path)
            "content": content,
            "structuredPatch": structured_patch(original or "", content),
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
