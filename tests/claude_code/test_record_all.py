"""``tracer record --all --claude-code --out DIR``: every bundled scenario played to the real
Claude Code 2.1.88 (slow: a few seconds a scenario; CI runs it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_helpers import real_claude
from run_helpers import Recording, run_tracer

from tracer.files.paths import bundled_scenarios


@pytest.mark.slow
def test_every_bundled_scenario_is_played_to_claude_code(tmp_path: Path) -> None:
    claude = real_claude()
    done = run_tracer(
        "record", "--all", "--claude-code", "--out", str(tmp_path),
        env={"TRACER_CLAUDE": str(claude)},
        timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for path, folder in bundled_scenarios():
        trace = tmp_path / folder / f"{path.stem}.trace.jsonl"
        run = Recording(trace)
        assert run.terminal is not None
        assert run.of("request"), f"{trace}: no request of the loop"
        assert (tmp_path / folder / f"{path.stem}.claude-code.jsonl").exists()
    # 06's output was too large: Claude Code saved it whole, and the file is kept beside.
    saved = list((tmp_path / "06-large-output.claude-code.tool-results").iterdir())
    assert len(saved) == 1 and saved[0].stat().st_size > 40_000
    preview = Recording(tmp_path / "06-large-output.trace.jsonl").results()[0]["content"]
    assert saved[0].name in preview and "<persisted-output>" in preview
