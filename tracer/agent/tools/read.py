"""Read: a file's lines, numbered ``N<TAB>line``, with ``offset`` and ``limit``.

Mirrors Claude Code's ``tools/FileReadTool``. Read is read-only, so several Reads may run at once,
and its size limit is infinite: persisting a Read result to a file the model would then have to
read again would be circular.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure

MAX_LINES_TO_READ = 2000
MAX_FILE_BYTES = 256 * 1024


class ReadTool(Tool):
    name: ClassVar[str] = "Read"
    description: ClassVar[str] = (
        "Read a text file from the workspace. Lines come back numbered (N<TAB>line); use offset "
        "(1-based first line) and limit to read part of a long file."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Path of the file to read"},
            "offset": {"type": "integer", "description": "First line to read, from 1"},
            "limit": {"type": "integer", "description": "How many lines to read"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = math.inf
    read_only: ClassVar[bool] = True

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        try:
            path = ctx.resolve(tool_input["file_path"], reading=True)
        except ToolFailure as failure:
            return failure.content
        if not path.exists():
            return f"File does not exist: {tool_input['file_path']}"
        if path.is_dir():
            return (
                f"{tool_input['file_path']} is a directory, not a file. Use Bash `ls` to list it."
            )
        if not path.is_file():
            # A FIFO or a device would block the read forever, or never end.
            return f"{tool_input['file_path']} is not a regular file."
        if path.stat().st_size > MAX_FILE_BYTES:
            return (
                f"File content ({path.stat().st_size} bytes) exceeds the maximum allowed size "
                f"({MAX_FILE_BYTES} bytes). Use offset and limit to read part of it."
            )
        with path.open("rb") as fh:
            if b"\0" in fh.read(8192):
                return (
                    "This tool cannot read binary files. The file appears to be binary; "
                    "use a tool meant for binary data."
                )
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = ctx.resolve(tool_input["file_path"], reading=True)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        start = max(int(tool_input.get("offset") or 1), 1)
        limit = int(tool_input.get("limit") or MAX_LINES_TO_READ)
        chosen = lines[start - 1 : start - 1 + limit]
        ctx.read_file_state[str(path)] = path.stat().st_mtime
        return {
            "type": "text",
            "file": {
                "filePath": str(path),
                "content": "\n".join(chosen),
                "numLines": len(chosen),
                "startLine": start,
                "totalLines": len(lines),
            },
        }

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        file = output["file"]
        if file["totalLines"] == 0:
            text = (
                "<system-reminder>Warning: the file exists but the contents are empty."
                "</system-reminder>"
            )
        elif file["numLines"] == 0:
            text = (
                f"<system-reminder>Warning: the file exists but is shorter than the provided "
                f"offset ({file['startLine']}). The file has {file['totalLines']} lines."
                "</system-reminder>"
            )
        else:
            first = file["startLine"]
            text = "\n".join(
                f"{first + i}\t{line}" for i, line in enumerate(file["content"].split("\n"))
            )
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
