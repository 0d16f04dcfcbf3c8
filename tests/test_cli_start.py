"""The command line's start: the parsers it builds, and a stop that lands while it loads.

A Ctrl-C while the command line or a command's module is imported, a second Ctrl-C as the process
ends, and a stop signal while the replay imports Textual are each one line and the signal's exit
code, never a traceback. The help is as wide as argparse makes it; a command line that names an
import format builds only that format's parser, and the parsers are named as argparse names them.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tracer.files.paths import MAIN_RECORDING, ROOT


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
