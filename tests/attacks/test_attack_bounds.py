"""Attacks on the bounds: output too large to hold, patterns that backtrack for ever, globs
that explode, files too large to search. Each ends within its bound, with a message, and the
trace stays one every reader opens.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.processes import KEPT_OUTPUT_BYTES, OUTPUT_CAP_BYTES
from tracer.agent.tools import ToolContext, globbing, grep_child
from tracer.agent.tools.base import ToolFailure
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.search import GlobTool
from tracer.files.untrusted import MAX_LINE
from tracer.trace.reader import TraceReader


def _printing(record: Any, size: str) -> Any:
    command = f"head -c {size} /dev/zero | tr '\\0' a; echo; echo tail-of-output >&2"
    return record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ],
        }
    )


def test_a_large_output_rolls_over_to_a_file(record: Any) -> None:
    rec = _printing(record, "3M")
    run = rec.one("tool_run")
    assert len(run.output["stdout"]) == OUTPUT_CAP_BYTES
    assert run.output["persistedOutputSize"] == 3 * 1024 * 1024 + 1
    kept = rec.path.parent / run.output["persistedOutputSaved"]
    assert kept.stat().st_size == 3 * 1024 * 1024 + 1  # the whole of it, beside the trace
    block = rec.one("mapping").block
    assert block["content"].startswith("<persisted-output>\nOutput too large (3MB).")
    assert max(len(line) for line in rec.path.read_bytes().split(b"\n")) < MAX_LINE // 8
    assert len(TraceReader(rec.path)) == len(rec.events)  # a reader opens it
    assert rec.terminal.reason == "completed"


@pytest.mark.slow
def test_a_gigabyte_of_output_is_kept_only_in_part(record: Any) -> None:
    rec = _printing(record, "1G")
    run = rec.one("tool_run")
    kept = rec.path.parent / run.output["persistedOutputSaved"]
    assert kept.stat().st_size == KEPT_OUTPUT_BYTES
    assert rec.path.stat().st_size < 16 * 1024 * 1024


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ToolContext(workspace=ws)


def test_a_backtracking_pattern_is_stopped(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_child, "GREP_SECONDS", 1.0)
    (ctx.workspace / "a.txt").write_text("a" * 40 + "b\n")
    started = time.monotonic()
    with pytest.raises(ToolFailure, match="Grep stopped after 1 s"):
        GrepTool().call({"pattern": "^(a+)+$"}, ctx)
    # The backtracking takes 2**40 steps: unstopped, hours. A margin no load can eat.
    assert time.monotonic() - started < 60
    assert GrepTool().call({"pattern": "a+b"}, ctx)["filenames"] == ["a.txt"]  # still works


def test_a_glob_of_many_stars_over_a_long_name_is_quick(ctx: ToolContext) -> None:
    deep = ctx.workspace.joinpath(*["d"] * 20)
    deep.mkdir(parents=True)
    (deep / ("a" * 200)).write_text("x")
    started = time.monotonic()
    for pattern in ("**/" * 9 + "*a*a*a*a*a*a*a*a*a*b", "**/**/**/**/**/**/**/**/**/*a*a*a*a*"):
        GlobTool().call({"pattern": pattern}, ctx)
    # An exponential matcher would take hours here; the speed itself is bench/'s to measure.
    assert time.monotonic() - started < 60
    found = GlobTool().call({"pattern": "**/" * 9 + "*a*a*"}, ctx)["filenames"]
    assert found == ["/".join(["d"] * 20 + ["a" * 200])]


def test_grep_does_not_read_a_huge_sparse_file(ctx: ToolContext) -> None:
    with (ctx.workspace / "sparse.bin").open("wb") as fh:
        fh.truncate(2 * 1024**3)
    (ctx.workspace / "small.txt").write_text("needle\n")
    out = GrepTool().call({"pattern": "needle"}, ctx)
    assert out["filenames"] == ["small.txt"] and out["skipped"] == 1
    assert "not searched" in GrepTool().map_result(out, "t")["content"]


def test_a_walk_stops_at_its_bound(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(globbing, "MAX_ENTRIES", 50)
    for i in range(200):
        (ctx.workspace / f"f{i:03}.txt").write_text("x")
    out = GlobTool().call({"pattern": "*.txt"}, ctx)
    assert out["walk_truncated"] is True and out["numFiles"] <= 50
    assert "stopped early" in GlobTool().map_result(out, "t")["content"]


def test_no_descriptor_is_left_open(ctx: ToolContext) -> None:
    (ctx.workspace / "sub").mkdir()
    for i in range(30):
        (ctx.workspace / "sub" / f"{i}.txt").write_text("needle")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        GrepTool().call({"pattern": "needle"}, ctx)
        GlobTool().call({"pattern": "**/*.txt"}, ctx)
    assert len(os.listdir("/proc/self/fd")) <= before
