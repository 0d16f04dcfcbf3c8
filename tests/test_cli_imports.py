"""Fast commands stay fast: each command imports only what it runs.

``anthropic`` takes over a second to import, so ``tracer --help``, ``show``, ``hooks`` and
``validate`` must never import it; ``python -X importtime`` lists every module a run imported,
which is the proof (and it does see the SDK when ``record`` loads it). ``--version`` and a
command's help load no TUI, SDK, YAML or Rich; ``tracer import claude-code`` runs without the
standard and the tracer modules its path does not need, and none of its modules imports them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import ROOT, SCENARIOS_DIR


def _imported_modules(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tracer", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    modules = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            modules.add(line.rsplit("|", 1)[1].strip())
    return proc, modules


@pytest.mark.parametrize(
    "args",
    [("--help",), ("show", "TRACE"), ("hooks", "TRACE"), ("validate", "TRACE")],
    ids=lambda a: a[0],
)
def test_light_commands_never_import_anthropic(args: tuple[str, ...], main_walk: Any) -> None:
    argv = [str(main_walk.path) if a == "TRACE" else a for a in args]
    proc, modules = _imported_modules(*argv)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # validate: 1 = problems found
    assert "tracer.cli.main" in modules, "importtime output was not parsed"
    heavy = sorted(m for m in modules if m == "anthropic" or m.startswith("anthropic."))
    assert heavy == [], f"{args[0]} imported {heavy[:3]}"
    assert "textual" not in modules


#: What no start-up needs: the TUI, the SDK, OTLP, YAML, the fast JSON, Rich, and the layers a
#: command that only prints its version or its help never runs.
NOT_AT_START_UP = (
    "textual",
    "anthropic",
    "opentelemetry",
    "yaml",
    "orjson",
    "rich",
    "tracer.doctor",
    "tracer.tour",
    "tracer.replay",
    "tracer.trace.events",
    "tracer.importers.claude_code.importer",
    "shutil",  # argparse's help formatter imports it for the terminal's width; Parser does not
)


@pytest.mark.parametrize("args", [("--version",), ("import", "--help")], ids=" ".join)
def test_start_up_imports_only_what_the_command_uses(args: tuple[str, ...]) -> None:
    # tracer --version cost 0.15-0.18 s of CPU: the parser imported every command's module,
    # and with them the doctor, the tour's words, the event classes and Rich (bench/startup.py).
    # sys.modules after the command, not -X importtime: importlib.import_module, which loads a
    # command's module, is not timed there.
    script = (
        "import sys; from tracer.cli.main import main; code = main(sys.argv[1:]); "
        "print('MODULES', *sorted(sys.modules)); sys.exit(code)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = set(proc.stdout.split("MODULES", 1)[1].split())
    assert "tracer.cli.main" in modules
    loaded = sorted(
        m for m in modules for heavy in NOT_AT_START_UP if m == heavy or m.startswith(heavy + ".")
    )
    assert loaded == []
    assert ("tracer.importers.command" in modules) == (args[0] == "import")


#: Standard modules ``tracer import claude-code`` runs without: their imports cost more than the
#: few calls the import made into them (``bench/import_speed.py``): ``typing`` (annotations name
#: it only under ``TYPE_CHECKING``), ``pathlib`` (paths are strings:
#: :mod:`tracer.files.pathnames`), ``threading`` (the writer's lock is ``_thread``'s) and
#: ``signal``, which builds three ``IntEnum`` classes (:mod:`tracer.interrupts` uses ``_signal``).
NOT_IN_AN_IMPORT: tuple[str, ...] = ("signal", "typing", "pathlib", "threading")

#: tracer's own modules ``tracer import claude-code`` runs without (each costs an import 0.3-1.4M
#: instructions): each is imported where the path that needs it begins, a file that is no
#: transcript (``foreign``), two calls with nothing written between them (``tokens``), an
#: environment holding a secret (``spellings``), a line orjson cannot read as the stdlib does
#: (``careful``), a copy without ``schema.json`` (``schema_build``), a ``schema.json`` or an event
#: class changed since the line checks were generated (``sound_code``, ``checked_code``: the code
#: that writes them); and the live loop's package, since the message record both write lives in
#: the trace layer.
OURS_NOT_IN_AN_IMPORT: tuple[str, ...] = (
    "tracer.trace.foreign",
    "tracer.trace.tokens",
    "tracer.trace.spellings",
    "tracer.files.careful",
    "tracer.trace.schema_build",
    "tracer.trace.sound_code",
    "tracer.trace.checked_code",
    "tracer.agent",
)


def _run_time_imports(file: str) -> set[str]:
    """The modules a source file imports when it runs: top-level imports, those in top-level
    ``try``/``if`` blocks (but ``if TYPE_CHECKING``), not those inside functions."""
    import ast

    found: set[str] = set()
    body = list(ast.parse(Path(file).read_text(encoding="utf-8")).body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        elif isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                body += node.body + node.orelse
        elif isinstance(node, ast.Try):
            body += node.body + node.orelse + node.finalbody
            body += [stmt for handler in node.handlers for stmt in handler.body]
    return found


def test_an_import_loads_only_what_it_runs(tmp_path: Path) -> None:
    # The whole command, as the console script runs it, on a small transcript named the way a
    # user might type it: pathlib's spelling of the name is kept without pathlib.
    (tmp_path / "sub").mkdir()
    source = ROOT / "tests" / "data" / "claude-code" / "v2.0-output-limit-then-tools.jsonl"
    (tmp_path / "sub" / "s.jsonl").write_bytes(source.read_bytes())
    script = (
        "import json, sys; from tracer.cli.console import run; code = run(); "
        "print(json.dumps({n: getattr(m, '__file__', None) for n, m in sys.modules.items()})); "
        "sys.exit(code)"
    )
    # An environment without secrets, whatever the test runs in (one would load spellings).
    from tracer.trace.secret_values import API_KEY_NAMES, secret_values

    secret_names = {*secret_values(os.environ).values(), *API_KEY_NAMES}
    env = {name: value for name, value in os.environ.items() if name not in secret_names}
    proc = subprocess.run(
        [sys.executable, "-c", script, "import", "claude-code", "./sub//s.jsonl"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.splitlines()[-1] == "wrote s.trace.jsonl"  # str(Path(...))'s spelling
    header = json.loads((tmp_path / "s.trace.jsonl").read_text(encoding="utf-8").split("\n")[0])
    assert header["source"]["path"] == "sub/s.jsonl"

    loaded: dict[str, str | None] = json.loads(proc.stdout.splitlines()[-1])
    assert "tracer.importers.claude_code.importer" in loaded
    assert "tracer.trace.requests" not in loaded  # the API log's encoded bodies
    assert sorted(set(loaded).intersection(NOT_IN_AN_IMPORT)) == []
    ours = sorted(
        m for m in loaded for n in OURS_NOT_IN_AN_IMPORT if m == n or m.startswith(n + ".")
    )
    assert ours == []
    checked = {
        name: _run_time_imports(file)
        for name, file in loaded.items()
        if name.startswith("tracer") and file
    }
    assert "tracer.cli.main" in checked and "tracer.interrupts" in checked
    unwanted = set(NOT_IN_AN_IMPORT)
    importing = {
        name: sorted(found & unwanted) for name, found in checked.items() if found & unwanted
    }
    assert importing == {}


def test_record_does_import_anthropic(tmp_path: Path) -> None:
    # The check above can fail: the same parsing sees the SDK when a command really loads it.
    proc, modules = _imported_modules(
        "record",
        "--scenario",
        str(SCENARIOS_DIR / "01-main-walk.yaml"),
        "-o",
        str(tmp_path / "t.jsonl"),
    )
    assert proc.returncode == 0
    assert "anthropic" in modules
