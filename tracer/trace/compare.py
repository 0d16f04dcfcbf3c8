"""Comparing two traces of the same scenario, ignoring what legitimately differs between runs.

The header lists the volatile fields (times, durations, hashes of bodies that contain temporary
paths) and the session's temporary paths. :func:`stable_view` drops the one and replaces the other
with ``<name>``, so two recordings of one scenario compare equal exactly when the code behaved the
same. The recordings test uses it to prove ``recordings/`` never drifts from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _scrub(value: Any, volatile: set[str], paths: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, volatile, paths) for k, v in value.items() if k not in volatile}
    if isinstance(value, list):
        return [_scrub(v, volatile, paths) for v in value]
    if isinstance(value, str):
        for name, path in paths.items():
            value = value.replace(path, f"<{name}>")
        return value
    return value


def stable_view(path: str | Path) -> list[Any]:
    """Every line of a trace as data, with volatile fields and temporary paths neutralized."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    volatile = set(header.get("volatile", []))
    # Longest first, so a path that contains another is replaced whole.
    paths = dict(sorted((header.get("paths") or {}).items(), key=lambda kv: -len(kv[1])))
    return [_scrub(json.loads(line), volatile, paths) for line in lines if line.strip()]


def first_difference(a: str | Path, b: str | Path) -> str | None:
    """Where two traces first differ (``None`` when they are the same apart from volatile data)."""
    left, right = stable_view(a), stable_view(b)
    for number, (x, y) in enumerate(zip(left, right, strict=False), start=1):
        if x != y:
            return (
                f"line {number}: {json.dumps(x, ensure_ascii=False)[:300]} != "
                f"{json.dumps(y, ensure_ascii=False)[:300]}"
            )
    if len(left) != len(right):
        return f"{len(left)} lines != {len(right)} lines"
    return None
