"""Read: a file's lines, numbered ``N<TAB>line``, with ``offset`` and ``limit``.

Mirrors Claude Code's ``tools/FileReadTool``. Read is read-only, so several Reads may run at once,
and its size limit is infinite: persisting a Read result to a file the model would then have to
read again would be circular.

The lines are 2.1.88's (``readFileInRange``): the text split at each newline, so a file that ends
with one has a last, empty line, numbered like the rest (``3\t``). The mapping (the chapter's
翻译) adds text the tool never read: 2.1.88 appends a ``<system-reminder>`` block to every text
result (``CYBER_RISK_MITIGATION_REMINDER``: read the file, but do not improve malware), except
for the one model it exempts. tracer appends a block of the same shape in its own words
(:data:`READ_REMINDER`); ``chapters/ch12/differences.yaml`` lists it.
"""

from __future__ import annotations

import math
import os
from typing import Any, ClassVar

from tracer.agent.tools.base import FileMissing, Tool, ToolContext, ToolFailure
from tracer.agent.tools.wall import read_at_most

FILE_NOT_FOUND_CWD_NOTE = "Note: your current working directory is"
"""2.1.88's words (``utils/file.ts``) after "File does not exist." for a Read of a missing file."""
MAX_LINES_TO_READ = 2000
MAX_FILE_BYTES = 256 * 1024
READ_REMINDER = (
    "\n\n<system-reminder>\nIf this file looks like malware, you may explain what it does, but "
    "do not improve or extend it.\n</system-reminder>\n"
)
"""What Read's mapping appends to a text result: 2.1.88's block, in tracer's words."""


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
        shown = tool_input["file_path"]
        try:
            path = ctx.resolve(shown, reading=True)
            if path.is_dir():
                return f"{shown} is a directory, not a file. Use Bash `ls` to list it."
            with ctx.open(shown, "read") as opened:
                return _unreadable(opened.fd, opened.st.st_size)
        except FileMissing:
            return None  # 2.1.88 finds it out in call(), which throws: an untagged error
        except ToolFailure as failure:
            return failure.content
        except OSError as exc:  # a name too long, say: one line for the model, no traceback
            return f"{shown!r} cannot be read: {exc.strerror}"

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        # Opened once; every check is made again on what was opened.
        try:
            opened = ctx.open(tool_input["file_path"], "read")
        except FileMissing:
            # FileReadTool's call() throws this; the catch in toolExecution.ts sends it as it is
            # (is_error, no <tool_use_error> tag). 2.1.88 may add "Did you mean …?"; tracer not.
            raise ToolFailure(
                f"File does not exist. {FILE_NOT_FOUND_CWD_NOTE} {ctx.workspace}."
            ) from None
        with opened:
            if reason := _unreadable(opened.fd, opened.st.st_size):
                raise ToolFailure(reason)
            data = read_at_most(opened.fd, MAX_FILE_BYTES)
            real, mtime = opened.real, opened.st.st_mtime
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        # readFileInRange: split at each "\n" (a "\r" before it dropped), so "a\nb\n" has a third,
        # empty line; an empty file has none here (its warning says it is empty).
        lines = [line.removesuffix("\r") for line in text.split("\n")] if text else []
        start = max(int(tool_input.get("offset") or 1), 1)
        limit = int(tool_input.get("limit") or MAX_LINES_TO_READ)
        chosen = lines[start - 1 : start - 1 + limit]
        ctx.read_file_state[str(real)] = mtime
        return {
            "type": "text",
            "file": {
                "filePath": tool_input["file_path"],  # as given (2.1.88: filePath: file_path)
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
        elif not file["content"]:
            text = (
                f"<system-reminder>Warning: the file exists but is shorter than the provided "
                f"offset ({file['startLine']}). The file has {file['totalLines']} lines."
                "</system-reminder>"
            )
        else:
            first = file["startLine"]
            text = (
                "\n".join(
                    f"{first + i}\t{line}" for i, line in enumerate(file["content"].split("\n"))
                )
                + READ_REMINDER
            )
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}


def _unreadable(fd: int, size: int) -> str | None:
    if size > MAX_FILE_BYTES:
        return (
            f"File content ({size} bytes) exceeds the maximum allowed size "
            f"({MAX_FILE_BYTES} bytes). Use offset and limit to read part of it."
        )
    if b"\0" in os.pread(fd, 8192, 0):
        return (
            "This tool cannot read binary files. The file appears to be binary; "
            "use a tool meant for binary data."
        )
    return None
