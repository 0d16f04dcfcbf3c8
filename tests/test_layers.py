"""The layers lean one way, and the tree shows them.

tracer is a stack of packages, lowest first: text and files at the bottom, then the message model,
the trace, the agent, the chapter's material, the recorder and the importers, the doctor, the
step view, the comparison and the tour, the exports, the Textual replay, and the command line on
top. A module may import its own layer and the layers below it, never one above: each ``import``
statement is read, the ones inside functions included (a lazy import is still a dependency), so a
shortcut back up cannot slip in unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tracer"

#: tracer's layers, lowest first. The root's modules (the version, the one error type, the
#: signal handling and the shared argument types) import nothing of tracer's and sit below all.
LAYERS: list[tuple[str, ...]] = [
    ("tracer", "tracer.errors", "tracer.interrupts", "tracer.arguments"),
    ("tracer.text",),
    ("tracer.files",),
    ("tracer.model",),
    ("tracer.trace",),
    ("tracer.agent",),
    ("tracer.chapter",),
    ("tracer.record",),
    ("tracer.importers",),
    ("tracer.claude_code",),
    ("tracer.doctor",),
    ("tracer.view",),
    ("tracer.compare",),
    ("tracer.tour",),
    ("tracer.export",),
    ("tracer.replay",),
    ("tracer.cli", "tracer.__main__"),
]

#: Packages that must never draw on a terminal toolkit: the web page and the tour stand on them.
TEXTUAL_FREE = ("view", "tour", "export", "compare", "doctor", "importers", "trace", "model")


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


def _module_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def _layer_of(module: str, layers: list[tuple[str, ...]] = LAYERS) -> int | None:
    """The index of the layer ``module`` belongs to (its longest matching name), None if none."""
    best: tuple[int, int] | None = None  # (length of the name matched, layer)
    for index, names in enumerate(layers):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (
                best is None or len(name) > best[0]
            ):
                best = (len(name), index)
    return None if best is None else best[1]


def _arrows_up(files: list[Path], root: Path, layers: list[tuple[str, ...]] = LAYERS) -> list[str]:
    """Every import that reaches a layer above the importing module's own."""
    arrows = []
    for path in files:
        own = _layer_of(_module_of(path, root), layers)
        for line, name in _imports(path):
            if not name.startswith("tracer"):
                continue
            to = _layer_of(name, layers)
            if own is not None and to is not None and to > own:
                arrows.append(f"{path.relative_to(root)}:{line}: imports {name}")
    return sorted(set(arrows))


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    named = {name.split(".")[1] for names in LAYERS for name in names if name.count(".") == 1}
    assert packages - named == set(), "a package with no place in LAYERS"


def test_no_arrow_runs_up() -> None:
    """The whole package: 0 imports from a lower layer into a higher one."""
    assert _arrows_up(sorted(PACKAGE.rglob("*.py")), PACKAGE.parent) == []


def test_the_arrow_check_finds_an_arrow_up(tmp_path: Path) -> None:
    """The checker itself: a view module that imports the replay lazily is an arrow up."""
    pkg = tmp_path / "tracer" / "view"
    pkg.mkdir(parents=True)
    (pkg / "steps.py").write_text("def f():\n    from tracer.replay.app import A\n")
    (pkg / "fine.py").write_text("from tracer.trace.reader import TraceReader\n")
    assert _arrows_up(sorted(pkg.glob("*.py")), tmp_path) == [
        "tracer/view/steps.py:2: imports tracer.replay.app",
        "tracer/view/steps.py:2: imports tracer.replay.app.A",
    ]


#: The rules the tree is read by, each named on its own (the layer order implies them all).
FOLDER_RULES = [
    ("view", "tracer.replay"),  # the step view is the replay's model, never its screen
    ("view", "tracer.tour"),
    ("view", "tracer.export"),  # the page stands on the view, not the other way round
    ("tour", "tracer.replay"),  # the tour's walk is pure; the replay draws it
    ("export", "tracer.replay"),  # the web page never needs the terminal app
    ("compare", "tracer.replay"),
    ("trace", "tracer.agent"),
    ("model", "tracer.trace"),
    ("agent", "tracer.record"),
]


@pytest.mark.parametrize(("package", "banned"), FOLDER_RULES)
def test_the_folder_rules(package: str, banned: str) -> None:
    offences = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {name}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for line, name in _imports(path)
        if name == banned or name.startswith(banned + ".")
    ]
    assert offences == []


@pytest.mark.parametrize("package", TEXTUAL_FREE)
def test_no_textual_below_the_replay(package: str) -> None:
    offences = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: imports {name}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for line, name in _imports(path)
        if name == "textual" or name.startswith("textual.")
    ]
    assert offences == []


def test_the_root_holds_at_most_five_modules() -> None:
    """The layers are folders, so the tree shows them; the root keeps only what is below all."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 5, loose


@pytest.mark.parametrize("banned", ["tracer.agent", "tracer.record"])
def test_the_check_sees_lazy_imports(tmp_path: Path, banned: str) -> None:
    """The checker itself: an import hidden in a function body is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(f"def f():\n    from {banned} import thing\n", encoding="utf-8")
    assert (2, banned) in _imports(sample)


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


def test_the_package_has_no_import_circle() -> None:
    """Across every layer and inside each: a module never reaches back to itself, even through a
    package's ``__init__`` or a lazy import inside a function."""
    assert _circle(sorted(PACKAGE.rglob("*.py"))) == []
