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
        PACKAGE / "internal_messages.py",
        PACKAGE / "api_messages.py",
        PACKAGE / "pairing.py",
        PACKAGE / "error_paths.py",
    ]
    assert len(files) > 5
    assert _offences(files, ("tracer.agent",)) == []


def test_the_agent_never_imports_the_recorder() -> None:
    files = sorted((PACKAGE / "agent").rglob("*.py"))
    assert _offences(files, ("tracer.record", "tracer.recorder")) == []


@pytest.mark.parametrize("banned", ["tracer.agent", "tracer.record"])
def test_the_check_sees_lazy_imports(tmp_path: Path, banned: str) -> None:
    """The checker itself: an import hidden in a function body is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(f"def f():\n    from {banned} import thing\n", encoding="utf-8")
    assert (2, banned) in _imports(sample)


def _module_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def _circle(files: list[Path], root: Path = PACKAGE.parent) -> list[str]:
    """One import circle among ``files`` (lazy imports count), as module names; [] if none."""
    names = {_module_of(p, root): p for p in files}
    edges = {
        name: sorted({m for _, m in _imports(path) if m in names and m != name})
        for name, path in names.items()
    }
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for nxt in edges[name]:
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[name] = 2
        return []

    for name in sorted(names):
        if name not in state and (found := visit(name)):
            return found
    return []


def test_the_trace_layer_has_no_import_circle() -> None:
    """reader → shapes → event_schema, and validate (schema) above the reader, never back."""
    files = sorted((PACKAGE / "trace").rglob("*.py"))
    assert _circle(files) == []


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    pkg = tmp_path / "tracer" / "trace"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("from tracer.trace.b import x\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from tracer.trace.a import y\n", encoding="utf-8")
    assert _circle([pkg / "a.py", pkg / "b.py"], tmp_path) == [
        "tracer.trace.a",
        "tracer.trace.b",
        "tracer.trace.a",
    ]


def test_the_importers_have_no_import_circle() -> None:
    # claude_code.py analyses a transcript and journey.py emits it: the record they share
    # (Transcript) lives below both, in transcript.py.
    assert _circle(sorted((PACKAGE / "importers").rglob("*.py"))) == []


def test_the_package_has_no_import_circle() -> None:
    """Across every layer: a lower layer never reaches back up, even through a package's
    ``__init__`` or a lazy import inside a function."""
    assert _circle(sorted(PACKAGE.rglob("*.py"))) == []
