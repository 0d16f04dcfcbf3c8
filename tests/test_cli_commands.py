"""The trace and record commands as a user runs them, and their bad input as one line, exit 2.

``show`` prints one line a step and the tokens last, notes a torn trace, and marks the request the
pairing patch changed; ``record`` writes where it is asked and says so, and a deny rule given on
the command line beats the scenario's allow. A missing file, a file that is no trace, a broken
event line, a bad scenario (at its file and line), a failing set-up command and a prompt without
a key are each one ``tracer:`` line and exit code 2, with no traceback.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import MAIN_RECORDING, SCENARIOS_DIR


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
