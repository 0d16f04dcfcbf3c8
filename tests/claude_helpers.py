"""Where the tests find the real Claude Code 2.1.88, and why they skip without it.

``.ci/run`` installs it from npm and names it in ``TRACER_CLAUDE``; by hand, ``claude`` on
``PATH`` works too. A test that needs it skips, saying how to install it, when it is missing or
of another version (what 2.1.88 sends is what the tests check)."""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pytest

from tracer.claude_code.launch import INSTALL, VERSION, claude_version


@functools.cache
def _found() -> tuple[Path | None, str]:
    name = os.environ.get("TRACER_CLAUDE") or "claude"
    found = shutil.which(name)
    if found is None:
        return None, f"Claude Code {VERSION} is not installed (`{INSTALL}`, or set TRACER_CLAUDE)"
    version = claude_version(Path(found))
    if version != VERSION:
        return None, f"{found} is Claude Code {version}, not {VERSION}"
    return Path(found), ""


def real_claude() -> Path:
    """The real ``claude`` 2.1.88, or the test skips with the reason."""
    found, why = _found()
    if found is None:
        pytest.skip(why)
    return found
