"""Keep the replay tests off the machine's own state: the recent files, the tour's progress and
the imported sessions go to a temporary folder, and no real Claude Code session is listed."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("TRACER_STATE_DIR", str(state))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(state / "claude"))
    return state
