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
    files = [*sorted((PACKAGE / "trace").rglob("*.py")), PACKAGE / "messages.py"]
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


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _cycles(folder: Path) -> list[list[str]]:
    """Import circles among the modules of ``folder`` (lazy and TYPE_CHECKING imports count)."""
    files = sorted(folder.rglob("*.py"))
    modules = {_module_of(p): p for p in files}
    graph = {
        name: {m for _, m in _imports(path) if m in modules and m != name}
        for name, path in modules.items()
    }
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    return found


def test_the_importers_have_no_import_circle() -> None:
    # claude_code.py analyses a transcript and journey.py emits it: the record they share
    # (Transcript) lives below both, in transcript.py.
    assert _cycles(PACKAGE / "importers") == []


def test_the_circle_check_finds_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "tracer" / "importers"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("from tracer.importers.b import x\n", encoding="utf-8")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tracer.importers.a import y\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path / "tracer")
    assert _cycles(pkg) == [["tracer.importers.a", "tracer.importers.b", "tracer.importers.a"]]
