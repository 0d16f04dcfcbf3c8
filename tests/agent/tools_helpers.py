"""What the tool tests share: a fresh temporary workspace as the tools' context.

The tests that call a tool directly (``test_tools_bash.py``, ``test_tools_files.py``) take the
``ctx`` fixture by naming this module in ``pytest_plugins``: a :class:`ToolContext` whose
workspace is an empty folder of the test's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.agent.tools import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ToolContext(workspace=ws)
