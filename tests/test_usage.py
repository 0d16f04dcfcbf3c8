"""Usage errors are one line; bundled names work wherever a TRACE or a scenario goes.

argparse's own reaction to a bad option is five lines of usage and a message; tracer's parser
turns every one of them, in every sub-command, into ``tracer: <command>: <what>`` and exit 2.
A file that is somebody else's log (a Claude Code transcript, a claude-trace API log) gets the
import command that would turn it into a trace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tracer.cli.main import main
from tracer.files.paths import (
    MAIN_RECORDING,
    RECORDINGS_DIR,
    SCENARIOS_DIR,
    resolve_scenario,
    resolve_trace,
)

Cli = Callable[..., CompletedProcess[str]]
FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"


@pytest.mark.parametrize(
    "args, command, words",
    [
        (["replay", "--stage", "bogus"], "replay", "invalid choice: 'bogus'"),
        (["replay", "--lang", "fr"], "replay", "invalid choice: 'fr'"),
        (["replay", "--size", "10x5"], "replay", "at least 40x10"),
        (["replay", "--size", "wide"], "replay", "expected WIDTHxHEIGHT"),
        (["doctor", "--lang", "fr", "01-main-walk"], "doctor", "invalid choice: 'fr'"),
        (["doctor", "01-main-walk", "--repeat", "1"], "doctor", "must be at least 2"),
        (["record"], "record", "one of the arguments --scenario --prompt --all is required"),
        (["record", "--all", "--prompt", "x"], "record", "not allowed with argument"),
        (["record", "--scenario", "x", "--max-turns", "0"], "record", "must be at least 1"),
        (["export", "01-main-walk", "--format", "pdf"], "export", "invalid choice: 'pdf'"),
        (["import", "api-log"], "import api-log", "the following arguments are required"),
        (["show"], "show", "the following arguments are required: TRACE"),
        (["bogus"], "", "invalid choice: 'bogus'"),
        (["--no-such-flag"], "", "unrecognized arguments: --no-such-flag"),
        # A wrong option after a sub-command is that sub-command's error, and its help.
        (["replay", "--bogus"], "replay", "unrecognized arguments: --bogus"),
        (["doctor", "01-main-walk", "--bogus", "x"], "doctor", "unrecognized arguments: --bogus x"),
        (["show", "01-main-walk", "--nope"], "show", "unrecognized arguments: --nope"),
        # ... and after a sub-command's own sub-command, the innermost one's.
        (["import", "claude-code", "--bogus", "x"], "import claude-code", "arguments: --bogus"),
        (["import", "api-log", "log.jsonl", "--bogus"], "import api-log", "arguments: --bogus"),
        # "-o -" is standard output to most tools: a command that writes a trace refuses it.
        (["import", "claude-code", "s.jsonl", "-o", "-"], "import claude-code", "standard output"),
        (["import", "api-log", "log.jsonl", "-o", "-"], "import api-log", "standard output"),
        (["record", "--scenario", "09-no-tools", "-o", "-"], "record", "standard output"),
    ],
)
def test_usage_errors_are_one_line(
    args: list[str], command: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "usage:" not in err
    prefix = f"tracer: {command}: " if command else "tracer: "
    assert err.startswith(prefix) and words in err, err
    assert err.rstrip().endswith(f"(see tracer {command} --help)".replace("  ", " "))


@pytest.mark.parametrize("fmt", ["md", "mermaid", "otlp-json"])
def test_export_to_dash_prints_what_no_output_prints(
    fmt: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", "05-max-turns", "--format", fmt]) == 0
    printed = capsys.readouterr().out
    assert main(["export", "05-max-turns", "--format", fmt, "-o", "-"]) == 0
    assert capsys.readouterr().out == printed != ""
    assert not any(tmp_path.iterdir())  # no file named "-"


def test_an_html_page_to_dash_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", "05-max-turns", "--format", "html", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "writes files, not standard output" in err, err
    assert not any(tmp_path.iterdir())


def test_help_and_version_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tracer ")
    assert main(["replay", "--help"]) == 0
    assert "usage: tracer replay" in capsys.readouterr().out


def test_a_usage_error_from_the_real_command(tracer_cli: Cli) -> None:
    proc = tracer_cli("replay", "--stage", "bogus")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("tracer: replay: ")
    assert "Traceback" not in proc.stderr


def test_bundled_names_resolve() -> None:
    assert resolve_trace("01-main-walk") == MAIN_RECORDING
    assert resolve_trace("01-main-walk.trace.jsonl") == MAIN_RECORDING
    fault = RECORDINGS_DIR / "faults" / "03-malformed-result.trace.jsonl"
    assert resolve_trace("faults/03-malformed-result") == fault
    assert resolve_trace("03-malformed-result") == fault
    assert resolve_trace("no-such-recording") == Path("no-such-recording")
    assert resolve_trace("../recordings/01-main-walk") == Path("../recordings/01-main-walk")
    assert resolve_scenario("01-main-walk") == SCENARIOS_DIR / "01-main-walk.yaml"
    faults = SCENARIOS_DIR.parent / "faults"
    assert resolve_scenario("faults/03-malformed-result") == faults / "03-malformed-result.yaml"
    assert resolve_scenario("03-malformed-result.yaml") == faults / "03-malformed-result.yaml"


@pytest.mark.parametrize(
    "args",
    [
        ["show", "05-max-turns"],
        ["hooks", "05-max-turns"],
        ["validate", "05-max-turns"],
        ["export", "05-max-turns", "--format", "mermaid"],
        ["doctor", "05-max-turns"],
    ],
    ids=lambda a: a[0],
)
def test_every_trace_command_takes_a_bundled_name(
    args: list[str], tracer_cli: Cli, tmp_path: Path
) -> None:
    by_name = tracer_cli(*args, cwd=tmp_path)
    by_path = tracer_cli(args[0], str(RECORDINGS_DIR / "05-max-turns.trace.jsonl"), *args[2:])
    assert by_name.returncode == by_path.returncode == 0, by_name.stderr
    assert by_name.stdout.replace(str(RECORDINGS_DIR) + "/", "") == by_path.stdout.replace(
        str(RECORDINGS_DIR) + "/", ""
    )
    assert by_name.stdout


def test_replay_takes_a_bundled_name(tracer_here: Cli, tmp_path: Path) -> None:
    fault = RECORDINGS_DIR / "faults" / "01-result-not-returned.trace.jsonl"
    shots = []
    for arg, name in (("faults/01-result-not-returned", "a.svg"), (str(fault), "b.svg")):
        out = tmp_path / name
        proc = tracer_here("replay", arg, "--lang", "en", "--screenshot", str(out), cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        shots.append(out.read_text(encoding="utf-8"))
    main_walk = tmp_path / "c.svg"
    assert tracer_here("replay", "--lang", "en", "--screenshot", str(main_walk)).returncode == 0
    assert shots[0] == shots[1] != main_walk.read_text(encoding="utf-8")


def test_a_missing_trace_names_what_was_typed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "no-such-recording"]) == 2
    assert capsys.readouterr().err.startswith("tracer: no-such-recording: ")


def test_record_a_scenario_by_name(tracer_here: Cli, tmp_path: Path) -> None:
    proc = tracer_here("record", "--scenario", "09-no-tools", "-o", "a.trace.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.trace.jsonl").is_file()


def test_out_goes_with_all(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["record", "--scenario", "09-no-tools", "--out", str(tmp_path)]) == 2
    assert "--out DIR goes with --all" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_all_with_a_trace_name_is_refused_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tracer.files.paths import ROOT

    recordings = Path(ROOT) / "recordings"
    before = {p.name: p.stat().st_mtime_ns for p in recordings.glob("*.jsonl")}
    assert main(["record", "--all", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "with --all, give the folder as --out DIR" in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())
    assert {p.name: p.stat().st_mtime_ns for p in recordings.glob("*.jsonl")} == before


def _fixture(folder: str, name: str) -> Path:
    path = FIXTURES / folder / name
    if not path.is_file():
        pytest.skip(f"shared fixture {folder}/{name} not present")
    return path


@pytest.mark.parametrize("command", ["show", "replay", "doctor", "validate"])
@pytest.mark.parametrize(
    "folder, name, importer",
    [
        ("claude-code-transcripts", "spotter-v2.1.38-tool-heavy.jsonl", "claude-code"),
        ("claude-code-transcripts", "ccviewer-v1.0.98-inline-sidechains-summary.jsonl",
         "claude-code"),
        ("api-logs", "claude-trace-2025-05-29-weather-app-first19.jsonl", "api-log"),
    ],
)  # fmt: skip
def test_foreign_logs_get_the_import_command(
    command: str, folder: str, name: str, importer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _fixture(folder, name)
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "not a tracer trace" in err
    assert err.rstrip().endswith(f"run `tracer import {importer} {path}`"), err


def test_an_unknown_json_file_gets_no_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "other.jsonl"
    path.write_text('{"type": "user", "text": "hello"}\n', encoding="utf-8")
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not a tracer trace" in err and "import" not in err
