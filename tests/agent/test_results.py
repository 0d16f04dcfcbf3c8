"""The size check after mapping: oversized results are saved whole and previewed, never cut.

As in Claude Code 2.1.88, a result over the tool's limit is written to ``tool-results/<id>.txt``
and its content becomes a ``<persisted-output>`` preview of the first 2,000 characters; Read's
limit is infinite, so its results are never persisted.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.results import (
    PREVIEW_SIZE_CHARS,
    format_file_size,
    is_tool_result_content_empty,
    maybe_persist_large_tool_result,
)
from tracer.agent.tools.read import MAX_FILE_BYTES

LONG_COMMAND = "head -c 40000 /dev/zero | tr '\\0' x"  # 40,000 x's, no line break


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1536, "1.5KB"),
        (52_326, "51.1KB"),
        (1024 * 1024, "1MB"),
        (3 * 1024 * 1024 + 104_858, "3.1MB"),
    ],
)
def test_format_file_size(size: int, text: str) -> None:
    assert format_file_size(size) == text


def test_format_file_size_rounds_ties_like_javascript() -> None:
    assert format_file_size(1280) == "1.3KB"


def test_empty_content() -> None:
    assert is_tool_result_content_empty("")
    assert is_tool_result_content_empty("  \n")
    assert is_tool_result_content_empty(None)
    assert is_tool_result_content_empty([])
    assert is_tool_result_content_empty([{"type": "text", "text": " "}])
    assert not is_tool_result_content_empty([{"type": "image", "source": {}}])
    assert not is_tool_result_content_empty("0")


def test_under_the_threshold_nothing_changes(tmp_path: Path) -> None:
    block = {"type": "tool_result", "content": "x" * 100, "tool_use_id": "t"}
    processed = maybe_persist_large_tool_result(block, "Bash", 100, tmp_path)
    assert processed.block == block and processed.persisted is None
    assert not any(tmp_path.iterdir())


def test_a_line_break_near_the_limit_ends_the_preview(tmp_path: Path) -> None:
    text = "a" * 1500 + "\n" + "b" * 1000
    block = {"type": "tool_result", "content": text, "tool_use_id": "t"}
    content = maybe_persist_large_tool_result(block, "Bash", 2000, tmp_path).block["content"]
    assert "Preview (first 2KB):\n" + "a" * 1500 + "\n...\n</persisted-output>" in content


def test_infinite_threshold_never_persists(tmp_path: Path) -> None:
    block = {"type": "tool_result", "content": "x" * 100_000, "tool_use_id": "t"}
    assert maybe_persist_large_tool_result(block, "Read", math.inf, tmp_path).block == block


def test_a_large_bash_result_is_persisted_beside_the_trace(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": LONG_COMMAND}}]},
                {"text": "that was long"},
            ],
        }
    )
    mapped = rec.one("mapping")
    content = mapped.block["content"]
    assert mapped.mapped_length == 40_000
    assert mapped.persisted["threshold"] == 30_000 and mapped.persisted["size"] == 40_000
    assert content.startswith(
        "<persisted-output>\nOutput too large (39.1KB). Full output saved to: "
    )
    assert content.endswith(
        "Preview (first 2KB):\n" + "x" * PREVIEW_SIZE_CHARS + "\n...\n</persisted-output>"
    )
    assert mapped.block["is_error"] is False
    assert mapped.block["tool_use_id"] == mapped.tool_use_id
    assert mapped.content_length == len(content)
    # The whole output is kept beside the trace, since the session's temp dir is deleted.
    saved = rec.path.parent / mapped.persisted["saved"]
    assert saved.read_text() == "x" * 40_000
    # The raw output in the trace keeps everything; the model gets the preview.
    assert len(rec.one("tool_run").output["stdout"]) == 40_000
    assert rec.requests()[1]["messages"][-1]["content"][0]["content"] == content


def test_read_is_never_persisted(record: Any) -> None:
    lines = 1900
    body = "".join(f"{'y' * 60}\n" for _ in range(lines))
    assert len(body) < MAX_FILE_BYTES
    rec = record(
        {
            "workspace": {"files": {"big.txt": body}},
            "permissions": {"allow": ["Read"]},
            "responses": [
                {"tool_use": [{"name": "Read", "input": {"file_path": "big.txt"}}]},
                {"text": "ok"},
            ],
        }
    )
    mapped = rec.one("mapping")
    assert mapped.persisted is None
    assert mapped.mapped_length > 100_000
    numbered = [line for line in mapped.block["content"].split("\n") if line[:1].isdigit()]
    # Every line numbered, and the empty one after the last newline too, as 2.1.88 numbers it.
    assert numbered[0].startswith("1\t") and numbered[lines - 1].startswith(f"{lines}\t")
    assert numbered[lines] == f"{lines + 1}\t"
