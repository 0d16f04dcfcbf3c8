"""``tracer replay`` from the command line: screenshots, opening options, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from replay_helpers import MAIN_TRACE

from tracer.files.paths import ROOT

Cli = Callable[..., subprocess.CompletedProcess[str]]


def test_screenshot_renders_the_chosen_step(tracer_here: Cli, tmp_path: Path) -> None:
    out = tmp_path / "shots" / "mapping.svg"
    proc = tracer_here(
        "replay",
        str(MAIN_TRACE),
        "--step",
        "8",
        "--lang",
        "en",
        "--screenshot",
        str(out),
        "--size",
        "100x30",
    )
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<svg")
    assert "8/36" in svg and "tool_result" in svg


def test_screenshot_by_turn_and_stage_in_chinese(tracer_cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "appending.svg"
    proc = tracer_cli(
        "replay",
        str(MAIN_TRACE),
        "--turn",
        "2",
        "--stage",
        "appending",
        "--screenshot",
        str(out),
        env={"LANG": "zh_CN.UTF-8", "LC_ALL": ""},
    )
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text(encoding="utf-8")
    assert "21/36" in svg and "追加" in svg


def test_without_a_trace_it_opens_the_bundled_recording(tracer_here: Cli, tmp_path: Path) -> None:
    out = tmp_path / "default.svg"
    proc = tracer_here("replay", "--screenshot", str(out), "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    assert "step 1/" in out.read_text(encoding="utf-8").replace("&#160;", " ")


def _newer(tmp_path: Path) -> Path:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["version"] = 99
    path = tmp_path / "newer.trace.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "make, args, words",
    [
        (lambda d: d / "missing.jsonl", [], "no such file"),
        (
            lambda d: (d / "notes.txt").write_text("hello\n") and d / "notes.txt",
            [],
            "not a tracer trace",
        ),
        (_newer, [], "newer tracer (format version 99"),
        (lambda d: MAIN_TRACE, ["--step", "99"], "no step 99: the trace has 36 steps"),
        (lambda d: MAIN_TRACE, ["--turn", "7"], "no step with turn 7"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tracer_here: Cli, tmp_path: Path, make: Callable, args: list[str], words: str
) -> None:
    path = make(tmp_path)
    proc = tracer_here("replay", str(path), *args, "--screenshot", str(tmp_path / "x.svg"))
    assert proc.returncode == 2
    assert words in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x.svg").exists()


def test_a_bad_size_is_refused(tracer_here: Cli, tmp_path: Path) -> None:
    proc = tracer_here("replay", "--size", "wide", "--screenshot", str(tmp_path / "x.svg"))
    assert proc.returncode == 2 and "WIDTHxHEIGHT" in proc.stderr


def test_the_replay_never_imports_anthropic(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from tracer.cli.main import main\n"
        f"rc = main(['replay', {str(MAIN_TRACE)!r}, '--screenshot', {str(tmp_path / 'a.svg')!r}])\n"
        "print(rc, 'anthropic' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )
    assert proc.stdout.split()[-2:] == ["0", "False"], proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--step", "5", "--turn", "2"], "--step picks the step itself"),
        (["--step", "5", "--stage", "mapping"], "--step picks the step itself"),
        (["--size", "80x24"], "--size sets the size of a --screenshot"),
    ],
)
def test_conflicting_or_ignored_flags_are_one_line_errors(
    tracer_cli: Cli, flags: list[str], words: str
) -> None:
    proc = tracer_cli("replay", str(MAIN_TRACE), *flags)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tracer: {words}")


def test_a_folder_lists_its_traces_with_titles(tracer_here: Cli, tmp_path: Path) -> None:
    proc = tracer_here("replay", str(ROOT / "recordings" / "faults"), "--lang", "zh")
    assert proc.returncode == 0, proc.stderr
    assert "03-malformed-result.trace.jsonl" in proc.stdout
    assert any("\u4e00" <= ch <= "\u9fff" for ch in proc.stdout)  # the titles, in Chinese
    empty = tracer_here("replay", str(tmp_path))
    assert empty.returncode == 2 and empty.stderr.startswith(f"tracer: {tmp_path}: no traces")


def test_a_bundled_name_opens_from_anywhere(tracer_here: Cli, tmp_path: Path) -> None:
    out = tmp_path / "max.svg"
    proc = tracer_here(
        "replay",
        "05-max-turns",
        "--lang",
        "en",
        "--screenshot",
        str(out),
        "--size",
        "80x24",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "step 1/" in out.read_text(encoding="utf-8").replace("&#160;", " ")
