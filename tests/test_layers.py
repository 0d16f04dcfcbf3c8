"""The layers lean one way: the trace and the message model never import the agent.

The check reads every ``import`` statement, the ones inside functions included (a lazy import is
still a dependency), so a shortcut through the agent cannot slip back in unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tracer"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, with the line of the statement."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return found


def _offences(files: list[Path], banned: tuple[str, ...]) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {name}"
        for path in files
        for line, name in _imports(path)
        if any(name == b or name.startswith(b + ".") for b in banned)
    ]


def test_the_trace_layer_imports_nothing_from_the_agent() -> None:
    files = [
        *sorted((PACKAGE / "trace").rglob("*.py")),
        PACKAGE / "messages.py",
        PACKAGE / "pairing.py",
        PACKAGE / "error_paths.py",
    ]
    assert len(files) > 5
    assert _offences(files, ("tracer.agent",)) == []


def test_the_agent_never_imports_the_recorder() -> None:
    files = sorted((PACKAGE / "agent").rglob("*.py"))
    assert _offences(files, ("tracer.record",)) == []


@pytest.mark.parametrize("banned", ["tracer.agent", "tracer.record"])
def test_the_check_sees_lazy_imports(tmp_path: Path, banned: str) -> None:
    """The checker itself: an import hidden in a function body is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(f"def f():\n    from {banned} import thing\n", encoding="utf-8")
    assert (2, banned) in _imports(sample)
