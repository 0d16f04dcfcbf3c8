"""The command line: fast commands stay fast, and bad input is one line and exit code 2.

``anthropic`` takes over a second to import, so ``tracer --help``, ``show``, ``hooks`` and
``validate`` must never import it; ``python -X importtime`` lists every module a run imported,
which is the proof.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import MAIN_RECORDING, ROOT, SCENARIOS_DIR


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


def test_help_lists_the_commands(tracer_cli: Any) -> None:
    proc = tracer_cli("--help")
    assert proc.returncode == 0
    for command in ("record", "show", "hooks", "validate"):
        assert command in proc.stdout


def test_show_lists_one_line_per_step(main_walk: Any, tracer_cli: Any) -> None:
    proc = tracer_cli("show", str(main_walk.path))
    assert proc.returncode == 0, proc.stderr
    *lines, total = proc.stdout.splitlines()
    steps = [e for e in main_walk.events if getattr(e, "stage", None)]
    assert len(lines) == len(steps)
    # Then one line with the tokens of every call, summed from the responses' usage.
    usage = [e.usage for e in main_walk.events if e.kind == "response"]
    fresh = sum(u.get("input_tokens", 0) for u in usage)
    assert total.startswith(f"tokens over {len(usage)} model call(s): input {fresh:,}, ")
    for number, (line, step) in enumerate(zip(lines, steps, strict=True), start=1):
        fields = line.split()
        assert fields[:4] == [str(number), "turn", str(step.turn), step.stage]
    assert "resending" in proc.stdout and "terminal" in lines[-1]


def test_show_the_bundled_recording(tracer_cli: Any) -> None:
    proc = tracer_cli("show", str(MAIN_RECORDING))
    assert proc.returncode == 0 and proc.stdout.count("\n") > 10


def test_show_notes_a_torn_trace(main_walk: Any, tracer_cli: Any, tmp_path: Path) -> None:
    torn = tmp_path / "torn.trace.jsonl"
    torn.write_bytes(main_walk.path.read_bytes()[:-15])
    proc = tracer_cli("show", str(torn))
    assert proc.returncode == 0
    assert "ends mid-event" in proc.stderr
    assert "terminal" not in proc.stdout


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("command", ["show", "hooks", "validate"])
def test_missing_trace(command: str, tracer_cli: Any, tmp_path: Path) -> None:
    line = _one_line_error(tracer_cli(command, str(tmp_path / "nope.jsonl")))
    assert line == f"tracer: {tmp_path / 'nope.jsonl'}: no such file"


@pytest.mark.parametrize("command", ["show", "hooks", "validate"])
def test_not_a_trace(command: str, tracer_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    line = _one_line_error(tracer_cli(command, str(path)))
    assert line.startswith(f"tracer: {path}:1: not a tracer trace")


@pytest.mark.parametrize("command", ["show", "hooks"])
def test_malformed_event_names_file_and_line(
    command: str, main_walk: Any, tracer_cli: Any, tmp_path: Path
) -> None:
    lines = main_walk.path.read_text(encoding="utf-8").splitlines()
    # Break a step line (``show`` decodes only steps; ``hooks`` reads every event).
    index = next(i for i, text in enumerate(lines) if text.startswith('{"kind":"turn_start"'))
    lines[index] = lines[index][:-5] + "garbage"
    path = tmp_path / "bad.trace.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = _one_line_error(tracer_cli(command, str(path)))
    assert line.startswith(f"tracer: {path}:{index + 1}: not valid JSON")


@pytest.mark.parametrize(
    ("text", "line_no", "message"),
    [
        ("name: x\nprompt: a: b\nresponses:\n  - text: hi\n", 2, "not valid YAML"),
        ("name: x\nprompt: go\ncolour: red\nresponses:\n  - text: hi\n", 3, "unknown key 'colour'"),
        (
            "name: x\nprompt: go\nresponses:\n  - text: hi\nmax_turns: 0\n",
            5,
            "max_turns must be at least 1",
        ),
        (
            "name: x\nprompt: go\ntools: [Read, Teleport]\nresponses:\n  - text: hi\n",
            3,
            "unknown tool 'Teleport'",
        ),
        (
            "name: x\nprompt: go\nresponses:\n  - text: hi\n"
            "    faults: [{status: 529, cut_after: 2}]\n",
            5,
            "each fault is",
        ),
    ],
    ids=["yaml-syntax", "unknown-key", "max-turns", "unknown-tool", "fault-shape"],
)
def test_bad_scenario_is_one_line_with_file_and_line(
    text: str, line_no: int, message: str, tracer_cli: Any, tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    line = _one_line_error(
        tracer_cli("record", "--scenario", str(path), "-o", str(tmp_path / "t.jsonl"))
    )
    assert line.startswith(f"tracer: {path}:{line_no}: ")
    assert message in line


def test_missing_scenario(tracer_cli: Any, tmp_path: Path) -> None:
    line = _one_line_error(tracer_cli("record", "--scenario", str(tmp_path / "none.yaml")))
    assert line == f"tracer: {tmp_path / 'none.yaml'}: no such file"


def test_a_failing_setup_command_is_a_user_error(tracer_here: Any, tmp_path: Path) -> None:
    path = tmp_path / "setup.yaml"
    path.write_text(
        "name: x\nprompt: go\nworkspace:\n  setup: ['echo broken >&2; exit 4']\n"
        "responses:\n  - text: hi\n",
        encoding="utf-8",
    )
    line = _one_line_error(
        tracer_here("record", "--scenario", str(path), "-o", str(tmp_path / "t.jsonl"))
    )
    assert "workspace set-up command failed" in line and "broken" in line


def test_prompt_without_a_key_is_a_user_error(
    tracer_here: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    proc = tracer_here("record", "--prompt", "hi", "-o", str(tmp_path / "t.jsonl"), cwd=tmp_path)
    line = _one_line_error(proc)
    assert "ANTHROPIC_API_KEY" in line


def test_record_writes_where_asked_and_says_so(tracer_here: Any, tmp_path: Path) -> None:
    out = tmp_path / "deep" / "walk.trace.jsonl"
    proc = tracer_here(
        "record", "--scenario", str(SCENARIOS_DIR / "01-main-walk.yaml"), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().startswith(f"wrote {out}")
    assert "[DEBUG]" not in proc.stderr, "hooks print only with --debug"
    assert out.exists()


def test_a_deny_rule_on_the_command_line_beats_the_scenarios_allow(
    tracer_here: Any, open_recording: Any, tmp_path: Path
) -> None:
    out = tmp_path / "walk.trace.jsonl"
    proc = tracer_here(
        "record",
        "--scenario",
        str(SCENARIOS_DIR / "01-main-walk.yaml"),
        "--deny",
        "Bash(git diff:*)",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    decisions = {
        e.tool_use_id: (e.decision, e.rule)
        for e in open_recording(out).events
        if e.kind == "permission"
    }
    assert sorted(decisions.values()) == [
        ("allow", "Bash(git status:*)"),
        ("allow", "Read"),
        ("deny", "Bash(git diff:*)"),
    ]


def test_show_marks_the_request_the_pairing_patch_changed(tracer_cli: Any) -> None:
    proc = tracer_cli("show", "faults/02-tool-use-id-mismatch")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # Every later request is patched again: the internal history keeps its hole.
    patched = [line for line in lines if "ensureToolResultPairing" in line]
    assert "request 3:" in patched[0] and "+1 made-up result, -1 orphan" in patched[0]
    assert len(patched) == 2 and "request 4:" in patched[1]
    assert any("request 2:" in line for line in lines)


def _console_when_importing(
    module: str | None, action: str, *args: str, setup: str = "", timeout: int = 60
) -> subprocess.CompletedProcess[str]:
    """The console script run as a user runs it, in a process where the import of ``module``
    first runs ``action`` (one statement): how a test makes a Ctrl-C or a stop signal land while
    the command line, or a command's own modules, load. ``setup`` runs before the script does."""
    script = f"""
import gc, os, signal, sys
class When:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            {action}
sys.modules.pop({module!r}, None)
sys.meta_path.insert(0, When())
{setup}
from tracer.cli.console import run
sys.exit(run())
"""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


@pytest.mark.parametrize("during", ["argparse", "tracer.cli.read"])
def test_a_ctrl_c_while_the_command_line_loads_is_one_line_not_a_traceback(during: str) -> None:
    # A Ctrl-C lands wherever the interpreter is: here, inside the import of the command line
    # (argparse) or of the sub-command's module (show's, while the parser is built for it).
    proc = _console_when_importing(during, "raise KeyboardInterrupt", "show", str(MAIN_RECORDING))
    assert proc.returncode == 130
    assert proc.stderr == "tracer: interrupted (Ctrl-C)\n"
    assert proc.stdout == ""


@pytest.mark.parametrize("first", ["argparse", None])
def test_a_second_ctrl_c_as_the_process_ends_changes_nothing(first: str | None) -> None:
    # The second Ctrl-C comes while the first is reported (or just after the command ended),
    # in the console script's clean-up: it made a traceback out of gc.freeze() (exit 1).
    second_ctrl_c = """
def second_ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    [None for _ in range(3)]  # Python code after it, where a handler would run
gc.freeze = second_ctrl_c
"""
    proc = _console_when_importing(
        first, "raise KeyboardInterrupt", "show", str(MAIN_RECORDING), setup=second_ctrl_c
    )
    if first is None:  # the command ran to its end
        assert (proc.returncode, proc.stderr) == (0, "")
    else:
        assert (proc.returncode, proc.stderr) == (130, "tracer: interrupted (Ctrl-C)\n")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_while_the_replay_imports_textual_is_one_line(signum: int, tmp_path: Path) -> None:
    # The replay takes the signals itself only once its app runs. Before, while it imported
    # Textual, SIGTERM killed it on the spot and a Ctrl-C raised inside a class's __set_name__
    # came out as a RuntimeError's traceback. Now the signal waits for the import to end, then
    # stops the command as everywhere: one line, 128 + its number, nothing written.
    out = tmp_path / "step.svg"
    proc = _console_when_importing(
        "textual.app",
        f"os.kill(os.getpid(), {int(signum)})",  # then the import goes on
        *("replay", str(MAIN_RECORDING), "--screenshot", str(out)),
        timeout=120,
    )
    name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
    assert (proc.returncode, proc.stderr) == (128 + signum, f"tracer: interrupted ({name})\n")
    assert not out.exists()


@pytest.mark.parametrize("columns", [None, "100", "oops", "0"])
def test_help_is_as_wide_as_argparse_makes_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracer.cli.main import Parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours = Parser(prog="tracer")._get_formatter()
    theirs = argparse.HelpFormatter(prog="tracer")  # the width from shutil.get_terminal_size
    assert (ours._width, ours._max_help_position) == (theirs._width, theirs._max_help_position)


def _formats(parser: argparse.ArgumentParser) -> list[str]:
    """The formats ``tracer import``'s parser was built with."""
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    formats = commands["import"]._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    return list(formats)


@pytest.mark.parametrize(
    ("argv", "built"),
    [
        (["import", "claude-code", "s.jsonl"], ["claude-code"]),
        (["import", "api-log", "log.jsonl"], ["api-log"]),
        (["import", "-h", "claude-code"], ["claude-code", "api-log"]),  # import's help lists both
        (["import", "bogus"], ["claude-code", "api-log"]),  # "invalid choice" lists both
        (["import"], ["claude-code", "api-log"]),
    ],
)
def test_a_command_line_that_names_a_format_builds_only_its_parser(
    argv: list[str], built: list[str]
) -> None:
    from tracer.cli.main import _command_of, _then, build_parser

    command = _command_of(argv)
    assert _formats(build_parser(command, _then(argv, command))) == built


def test_the_sub_commands_parsers_are_named_as_argparse_names_them() -> None:
    # Parser.add_subparsers names them without formatting a usage line: the same names.
    from tracer.cli.main import build_parser

    parser = build_parser("import", "claude-code")
    theirs = argparse.ArgumentParser(prog="tracer").add_subparsers(dest="command")
    assert theirs._prog_prefix == parser._subparsers._group_actions[0]._prog_prefix == "tracer"  # type: ignore[union-attr]
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    formats = commands["import"]._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert formats._prog_prefix == "tracer import"
    assert formats.choices["claude-code"].prog == "tracer import claude-code"
