"""Grep: search the workspace's files by content, in one of three output modes.

Mirrors Claude Code 2.1.88's ``GrepTool`` (``src/tools/GrepTool/GrepTool.ts``): the same input
fields (``output_mode`` ``files_with_matches`` by default, ``content`` or ``count``; ``-n`` on by
default, ``-A``/``-B``/``-C``/``context`` and ``-i``; ``glob``, ``type``, ``multiline``;
``head_limit``, 250 unless given, ``0`` for no limit, and ``offset``), the same paging
(``applyHeadLimit``: the limit is reported only when it cut something), and the same mapping to a
``tool_result`` (``mapToolResultToToolResultBlockParam``): ``Found 2 files`` with the names,
``No files found``, the matching lines or ``No matches found``, and a count followed by
``Found 3 total occurrences across 2 files.``

Where 2.1.88 runs ripgrep, tracer walks the workspace in Python (:mod:`.search` gathers the files
safely, :mod:`.grep_child` runs the pattern in a child with a deadline). Differences that remain:
the files are listed by path, not newest first; quoted numbers (``"3"``) are refused, not read as
numbers; ``path`` must be a folder; ``type`` knows the common file types only.
"""

from __future__ import annotations

import os
import re
from typing import Any, ClassVar

import tracer.agent.tools.grep_child as grep_child
from tracer.agent.tools.base import Tool, ToolContext, ToolFailure
from tracer.agent.tools.globbing import compile_glob
from tracer.agent.tools.grep_child import GrepTimeout
from tracer.agent.tools.search import TRUNCATED_WALK, search_root, shown_path, workspace_files
from tracer.agent.tools.wall import read_at_most

GREP_MAX_FILE_BYTES = 4 * 1024 * 1024
GREP_MAX_TOTAL_BYTES = 32 * 1024 * 1024
DEFAULT_HEAD_LIMIT = 250  # 2.1.88's, so an unbounded search does not flood the context
MODES = ("content", "files_with_matches", "count")

# rg --type, for the common types (rg's own table is much longer).
_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java", "*.jsp"),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss"),
    "txt": ("*.txt",),
}


def _number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def _globs(glob: str) -> list[str]:
    """Split as 2.1.88 splits ``glob`` (spaces, then commas outside braces), braces expanded."""
    out: list[str] = []
    for raw in glob.split():
        if "{" in raw and "}" in raw:
            head, _, rest = raw.partition("{")
            inside, _, tail = rest.partition("}")
            out += [head + choice + tail for choice in inside.split(",")]
        else:
            out += [part for part in raw.split(",") if part]
    return out


def _selector(tool_input: dict[str, Any]) -> Any:
    """A test of a file's relative path: the globs (``!`` excludes) and the type."""
    patterns = _globs(tool_input.get("glob") or "")
    keep = [compile_glob("**/" + p.lstrip("/")) for p in patterns if not p.startswith("!")]
    drop = [compile_glob("**/" + p[1:].lstrip("/")) for p in patterns if p.startswith("!")]
    kind = tool_input.get("type")
    typed = [compile_glob("**/" + p) for p in _TYPES.get(kind or "", ())]

    def wanted(relative: str) -> bool:
        if kind and not any(g.match(relative) for g in typed):
            return False  # an unknown type matches nothing (rg stops with an error, no output)
        if any(g.match(relative) for g in drop):
            return False
        return not keep or any(g.match(relative) for g in keep)

    return wanted


def _page(lines: list[str], limit: Any, offset: int) -> tuple[list[str], int | None]:
    """``applyHeadLimit``: the page, and the limit only when it cut something."""
    if limit == 0:
        return lines[offset:], None
    limit = DEFAULT_HEAD_LIMIT if limit is None else int(limit)
    return lines[offset : offset + limit], (limit if len(lines) - offset > limit else None)


def _limit_info(output: dict[str, Any]) -> str:
    parts = []
    if output.get("appliedLimit") is not None:
        parts.append(f"limit: {output['appliedLimit']}")
    if output.get("appliedOffset"):
        parts.append(f"offset: {output['appliedOffset']}")
    return ", ".join(parts)


class GrepTool(Tool):
    name: ClassVar[str] = "Grep"
    description: ClassVar[str] = (
        "Search file contents with a regular expression. output_mode: files_with_matches "
        "(default) lists the files, content shows the matching lines, count counts them."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "A Python regular expression"},
            "path": {"type": "string", "description": "Directory to search (default: workspace)"},
            "glob": {"type": "string", "description": "Only files matching this glob"},
            "output_mode": {"type": "string", "enum": list(MODES)},
            "-B": _number("Lines before each match (content mode)"),
            "-A": _number("Lines after each match (content mode)"),
            "-C": _number("Alias for context"),
            "context": _number("Lines before and after each match (content mode)"),
            "-n": {"type": "boolean", "description": "Line numbers (content mode, default on)"},
            "-i": {"type": "boolean", "description": "Case insensitive search"},
            "type": {"type": "string", "description": "File type, e.g. py, js, go"},
            "head_limit": _number("First N lines/entries (default 250, 0 for all)"),
            "offset": _number("Skip the first N lines/entries"),
            "multiline": {"type": "boolean", "description": "Patterns may span lines"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    max_result_size_chars: ClassVar[float] = 20_000
    read_only: ClassVar[bool] = True

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        mode = tool_input.get("output_mode", "files_with_matches")
        if mode not in MODES:
            return f"output_mode must be one of {', '.join(MODES)}, not {mode!r}"
        for field in ("-A", "-B", "-C", "context", "head_limit", "offset"):
            if tool_input.get(field, 0) < 0:
                return f"{field} must not be negative"
        try:
            re.compile(tool_input["pattern"])
        except (re.error, RecursionError, OverflowError, ValueError) as exc:
            return f"Invalid regular expression: {exc}"
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        walk, shown_root = search_root(tool_input, ctx)
        wanted = _selector(tool_input)
        names: list[str] = []
        contents: list[bytes] = []
        total, skipped = 0, 0
        try:
            for relative, fd in workspace_files(walk, shown_root, ctx):
                assert fd is not None
                try:
                    if not wanted(relative):
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
                names.append(shown_path(shown_root, relative))
                contents.append(data)
        finally:
            os.close(walk.top_fd)
        order = sorted(range(len(names)), key=lambda i: names[i].split("/"))
        lines = self._search(tool_input, [names[i] for i in order], [contents[i] for i in order])
        offset = int(tool_input.get("offset") or 0)
        page, applied = _page(lines, tool_input.get("head_limit"), offset)
        mode = tool_input.get("output_mode", "files_with_matches")
        output: dict[str, Any] = {"mode": mode, "numFiles": 0, "filenames": []}
        if mode == "content":
            output.update(content="\n".join(page), numLines=len(page))
        elif mode == "count":
            counts = [int(n) for _, _, n in (line.rpartition(":") for line in page)]
            output.update(content="\n".join(page), numFiles=len(counts), numMatches=sum(counts))
        else:
            output.update(filenames=page, numFiles=len(page))
        if applied is not None:
            output["appliedLimit"] = applied
        if offset > 0:
            output["appliedOffset"] = offset
        if skipped:
            output["skipped"] = skipped
        if walk.truncated:
            output["walk_truncated"] = True
        return output

    def _search(self, tool_input: dict[str, Any], names: list[str], contents: list[bytes]):
        mode = tool_input.get("output_mode", "files_with_matches")
        content = mode == "content"
        around = tool_input.get("context", tool_input.get("-C"))
        limit = tool_input.get("head_limit")
        options = {
            "pattern": tool_input["pattern"],
            "mode": mode,
            "i": bool(tool_input.get("-i")),
            "U": bool(tool_input.get("multiline")),
            "n": content and tool_input.get("-n", True),
            "B": int(around if around is not None else tool_input.get("-B", 0)) if content else 0,
            "A": int(around if around is not None else tool_input.get("-A", 0)) if content else 0,
            # one line past the page, so the child can stop and the page still knows it was cut
            "stop": None
            if limit == 0
            else int(tool_input.get("offset") or 0)
            + int(DEFAULT_HEAD_LIMIT if limit is None else limit)
            + 1,
        }
        try:
            return grep_child.search(options, names, contents)
        except GrepTimeout:
            raise ToolFailure(
                # the deadline is read when it passes (a test shortens it)
                f"Grep stopped after {grep_child.GREP_SECONDS:.0f} s: the pattern takes too long "
                "on these files (nested repetition such as (a+)+ can backtrack for ever). "
                "Simplify it."
            ) from None

    def map_result(self, output: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
        info = _limit_info(output)
        mode = output.get("mode", "files_with_matches")
        if mode == "content":
            text = output.get("content") or "No matches found"
            if info:
                text += f"\n\n[Showing results with pagination = {info}]"
        elif mode == "count":
            matches, files = output.get("numMatches", 0), output["numFiles"]
            text = (output.get("content") or "No matches found") + (
                f"\n\nFound {matches} total {'occurrence' if matches == 1 else 'occurrences'} "
                f"across {files} {'file' if files == 1 else 'files'}."
                + (f" with pagination = {info}" if info else "")
            )
        elif not output["numFiles"]:
            text = "No files found"
        else:
            n = output["numFiles"]
            text = f"Found {n} {'file' if n == 1 else 'files'}{f' {info}' if info else ''}\n"
            text += "\n".join(output["filenames"])
        if output.get("skipped"):
            text += (
                f"\n({output['skipped']} files not searched: hard links, or larger than "
                f"{GREP_MAX_FILE_BYTES // (1024 * 1024)} MB, or past the "
                f"{GREP_MAX_TOTAL_BYTES // (1024 * 1024)} MB the search reads in all.)"
            )
        if output.get("walk_truncated"):
            text += "\n" + TRUNCATED_WALK.format(entries=f"{50_000:,}")
        return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}
