"""Reading a recorded trace back, and running ``tracer`` as a user does: shared by the fixtures in
``conftest.py`` and by test modules that import them directly.

They live here, not in ``conftest.py``, because a test module that says ``from run_helpers import
...`` gets whichever ``conftest`` module its worker imported first (``tests/replay/`` has one
too), and the import then fails or not by the order the tests ran in.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader


class Recording:
    """A recorded trace and small queries over it (events by kind, messages by uuid)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reader = TraceReader(path)
        self.events = list(self.reader)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.kind == kind]

    def one(self, kind: str) -> Any:
        found = self.of(kind)
        assert len(found) == 1, f"expected one {kind} event, found {len(found)}"
        return found[0]

    @property
    def messages(self) -> dict[str, Any]:
        return {e.uuid: e for e in self.of("message")}

    @property
    def terminal(self) -> Any:
        assert self.events[-1].kind == "terminal", "a trace must end with its terminal event"
        return self.events[-1]

    def results(self) -> list[dict[str, Any]]:
        """Every mapped ``tool_result`` block, in trace order."""
        return [e.block for e in self.of("mapping")]

    def result_for(self, tool_use_id: str) -> dict[str, Any]:
        return next(e.block for e in self.of("mapping") if e.tool_use_id == tool_use_id)

    def requests(self) -> list[Any]:
        """Every request body, rebuilt from the trace."""
        from tracer.trace.requests import rebuild_requests

        return [r.body for r in rebuild_requests(self.events)]

    def hook_lines(self) -> list[str]:
        return [e.line for e in self.of("debug_hook")]


def run_tracer(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m tracer ARGS`` in a fresh interpreter, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tracer", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd or ROOT,
        env={**os.environ, **(env or {})},
    )
