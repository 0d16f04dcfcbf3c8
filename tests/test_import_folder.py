"""``tracer import claude-code DIR``: every session of a project folder, with a progress bar on
a terminal and a summary table; the numbers checked against the fixtures by hand."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.importers.claude_code.folder import import_folder, progress_bar
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder: three sessions, a 2.0 agent file beside them, an empty file."""
    folder = tmp_path / "-home-dev-app"
    folder.mkdir()
    for name in ("v2.1-clear-context-three-conversations.jsonl", "v1.0-local-commands.jsonl"):
        shutil.copy(DATA / name, folder / name)
    for file in (DATA / "layout-2.0").iterdir():
        shutil.copy(file, folder / file.name)  # a session, its agent file, an empty file
    return folder


def test_every_session_of_a_folder_is_imported(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "traces"
    assert main(["import", "claude-code", str(project), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    traces = sorted(p.name for p in out.iterdir())
    assert traces == [
        "5e55a0f1-0000-4000-8000-000000000001.trace.jsonl",
        "v1.0-local-commands.trace.jsonl",
        "v2.1-clear-context-three-conversations.trace.jsonl",
    ]
    assert all(validate_trace(out / t)[1] == [] for t in traces)
    lines = err.splitlines()
    assert lines[0].split() == [
        "session", "model", "calls", "tool", "results", "subagents", "missing", "skipped",
        "result",
    ]  # fmt: skip
    rows = {line.split()[0]: line.split()[1:6] for line in lines[2:5]}
    # By hand: the 2.0 session makes 2 calls and runs 1 tool (the Task) with 1 subagent loop;
    # the 1.0 one 7 calls and 4 tools, its /status and /doctor skipped (3 records); the
    # cleared one 7 calls and 5 tools in three conversations.
    assert rows == {
        "5e55a0f1-0000-4000-8000-000000000001": ["2", "1", "1", "0", "0"],
        "v1.0-local-commands": ["7", "4", "0", "0", "3"],
        "v2.1-clear-context-three-conversatio…": ["7", "5", "0", "0", "0"],
    }
    assert lines[-2].split()[:7] == ["3", "sessions", "16", "10", "1", "0", "3"]
    assert lines[-2].endswith("3 imported")
    assert lines[-1] == f"wrote 3 trace(s) into {out}"
    assert "\r[" not in err  # not a terminal: no progress bar
    tools = [e.tool for e in TraceReader(out / traces[0]) if e.kind == "tool_run"]
    assert tools == ["Grep", "Task"]  # the agent file beside it, nested in its session


def test_a_broken_session_is_one_row_and_exit_2(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "broken.jsonl").write_text("not json\n", encoding="utf-8")
    assert main(["import", "claude-code", str(project), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    (row,) = [line for line in err.splitlines() if line.startswith("broken")]
    assert row.endswith("error: " + f"{project / 'broken.jsonl'}:1: no JSON object on any line: "
                        "not a JSON-lines log")  # fmt: skip
    assert "3 imported, 1 failed" in err and "Traceback" not in err


def test_an_empty_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "claude-code", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err.strip().endswith("no Claude Code session (*.jsonl) in this folder")
    )


def test_the_progress_bar_is_drawn_on_a_terminal_only(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, int]] = []
    import_folder(project, tmp_path / "o", lambda done, total, _: seen.append((done, total)))
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert progress_bar(1, 4, Path("abc.jsonl"), width=8) == "\r[##......]   1/4  abc"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    assert main(["import", "claude-code", str(project), "-o", str(tmp_path / "p")]) == 0
    drawn = term.getvalue()
    assert drawn.count("\r[") == 4 and "\r[" + "#" * 30 + "]   3/3" in drawn


def test_an_output_that_is_a_file_is_one_line(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken"
    taken.write_text("x", encoding="utf-8")
    assert main(["import", "claude-code", str(project), "-o", str(taken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tracer: {taken}: cannot make the folder for the traces")
    assert "Traceback" not in err


def test_a_ctrl_c_part_way_says_which_traces_are_there(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tracer.importers.claude_code.importer as claude_code

    real, done = claude_code.import_claude_code, []

    def stopped_at_the_third(path: object, output: object) -> object:
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(path)
        return real(path, output)  # type: ignore[arg-type]

    monkeypatch.setattr(claude_code, "import_claude_code", stopped_at_the_third)
    out = tmp_path / "traces"
    assert main(["import", "claude-code", str(project), "-o", str(out)]) == 130
    err = capsys.readouterr().err.splitlines()
    assert err[-2:] == [f"wrote 2 trace(s) into {out}", "tracer: interrupted (Ctrl-C)"]
    assert err[-3].split()[:2] == ["2", "sessions"]
    # The two done are whole; the third was never begun; nothing half-written is left.
    traces = sorted(out.iterdir())
    assert [p.name for p in traces] == [f"{Path(str(p)).stem}.trace.jsonl" for p in done]
    assert all(validate_trace(t)[1] == [] for t in traces)


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_stop_signal_mid_trace_leaves_no_half_written_file(
    name: str,
    code: int,
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # timeout(1) or a closing terminal while the second trace is being written: the import
    # stops as at a Ctrl-C, the trace being written is removed, the ones before are whole.
    import os
    import signal

    import tracer.importers.claude_code.importer as claude_code

    real, calls = claude_code.emit_all, []

    def signalled(t: Any, emit: Any) -> Any:
        calls.append(t)
        if len(calls) < 2:
            return real(t, emit)
        sent = []

        def emit_then_signal(event: Any) -> Any:
            emit(event)
            sent.append(event)
            if len(sent) == 10:
                os.kill(os.getpid(), getattr(signal, name))

        return real(t, emit_then_signal)

    monkeypatch.setattr(claude_code, "emit_all", signalled)
    out = tmp_path / "traces"
    assert main(["import", "claude-code", str(project), "-o", str(out)]) == code
    err = capsys.readouterr().err.splitlines()
    assert err[-2:] == [f"wrote 1 trace(s) into {out}", f"tracer: interrupted ({name})"]
    left = sorted(p.name for p in out.iterdir())
    assert len(left) == 1 and not left[0].startswith(".")  # no hidden .partial file
    assert validate_trace(out / left[0])[1] == []
