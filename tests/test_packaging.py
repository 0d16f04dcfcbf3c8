"""What the package index shows and pip resolves: ``pyproject.toml``'s metadata."""

from __future__ import annotations

import re
import tomllib

from tracer.files.paths import ROOT


def test_every_dependency_is_a_range_with_both_ends() -> None:
    # rich was the one dependency without an upper bound: a new major version could install
    # beside tracer and change what it draws.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in project["dependencies"]:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+>=[^,]+,<[0-9.]+", requirement), requirement
