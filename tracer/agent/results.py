"""Station 1 finished: the mapped block is checked for size and emptiness before it travels on.

Mirrors Claude Code's ``utils/toolResultStorage.ts``: ``processToolResultBlock`` (map, then
check), ``processPreMappedToolResultBlock`` (check a block mapped earlier) and
``maybePersistLargeToolResult``. In 2.1.88 nothing is truncated: an empty result becomes
``(<Tool> completed with no output)``, and one over the tool's limit is saved whole to a file and
replaced by a ``<persisted-output>`` preview of its first 2,000 characters.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.agent.sizes import PREVIEW_SIZE_CHARS, format_file_size
from tracer.agent.tools.base import Tool


@dataclass(frozen=True, slots=True)
class ProcessedBlock:
    """The block ready for wrapping, and what the size check did to it."""

    block: dict[str, Any]
    mapped_length: int
    persisted: dict[str, Any] | None = None
    empty_replaced: bool = False


def safe_file_stem(tool_use_id: Any) -> str:
    """A ``tool_use`` id as a file name: it comes from the model (or a scenario), so ``../x`` or
    ``/etc/passwd`` must not become a path. Real ids (``toolu_01…``) pass unchanged."""
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", str(tool_use_id))[:128]
    return stem if stem.strip("_") else "tool_result"


def _content_size(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(b.get("text", "")) for b in content if b.get("type") == "text")
    return 0


def is_tool_result_content_empty(content: Any) -> bool:
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, list):
        return all(b.get("type") == "text" and not b.get("text", "").strip() for b in content)
    return False


def _preview(text: str) -> tuple[str, bool]:
    if len(text) <= PREVIEW_SIZE_CHARS:
        return text, False
    cut = text[:PREVIEW_SIZE_CHARS]
    last_newline = cut.rfind("\n")
    # Cut at a line break when one is close enough to the limit, so the preview ends cleanly.
    if last_newline > PREVIEW_SIZE_CHARS // 2:
        cut = cut[:last_newline]
    return cut, True


def maybe_persist_large_tool_result(
    block: dict[str, Any], tool_name: str, threshold: float, results_dir: Path | None
) -> ProcessedBlock:
    content = block.get("content")
    size = _content_size(content)
    if is_tool_result_content_empty(content):
        replaced = {**block, "content": f"({tool_name} completed with no output)"}
        return ProcessedBlock(replaced, size, empty_replaced=True)
    if isinstance(content, list) and any(b.get("type") == "image" for b in content):
        return ProcessedBlock(block, size)
    if math.isinf(threshold) or size <= threshold or results_dir is None:
        return ProcessedBlock(block, size)
    results_dir.mkdir(parents=True, exist_ok=True)
    is_json = isinstance(content, list)
    path = (
        results_dir / f"{safe_file_stem(block.get('tool_use_id'))}.{'json' if is_json else 'txt'}"
    )
    text = json.dumps(content, ensure_ascii=False, indent=2) if is_json else str(content)
    try:
        with path.open("x", encoding="utf-8") as fh:  # written once, like Claude Code's 'wx'
            fh.write(text)
    except OSError:
        return ProcessedBlock(block, size)
    preview, more = _preview(text)
    message = (
        "<persisted-output>\n"
        f"Output too large ({format_file_size(len(text.encode('utf-8')))}). "
        f"Full output saved to: {path}\n\n"
        f"Preview (first 2KB):\n{preview}\n" + ("...\n" if more else "") + "</persisted-output>"
    )
    persisted = {"path": str(path), "size": size, "threshold": int(threshold)}
    return ProcessedBlock({**block, "content": message}, size, persisted=persisted)


def process_pre_mapped_tool_result_block(
    block: dict[str, Any], tool: Tool, results_dir: Path | None
) -> ProcessedBlock:
    """The size and emptiness check for a block the tool already mapped."""
    return maybe_persist_large_tool_result(
        block, tool.name, tool.persistence_threshold, results_dir
    )


def process_tool_result_block(
    tool: Tool, tool_use_result: Any, tool_use_id: str, results_dir: Path | None
) -> ProcessedBlock:
    """Map the raw output with the tool's own mapping, then check it."""
    block = tool.map_result(tool_use_result, tool_use_id)
    return process_pre_mapped_tool_result_block(block, tool, results_dir)
