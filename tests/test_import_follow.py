"""Following a Claude Code session while it is written (``--follow``): a line at a time, torn
lines, records logged before their parents, a compaction in the middle. What the live trace ends
with is exactly what a whole-file import writes, and settled steps show up before the end."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.files.paths import ROOT
from tracer.importers.claude_code.importer import import_claude_code
from tracer.importers.claude_code.live import LiveImport, is_transcript
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"
LIVE_CASES = [
    "v2.1-result-before-assistant.jsonl",
    "v1.0-compaction-summary-root.jsonl",
    "v2.1-system-records-on-chain.jsonl",
    "v1.0-inline-sidechain.jsonl",
    "v2.1-polling-bash-output.jsonl",
    "v2.1-clear-context-three-conversations.jsonl",
    "v1.0-local-commands.jsonl",
    "v1.0-task-retried-same-prompt.jsonl",
    "v2.1-subagent-only-in-progress-records.jsonl",
    "v2.1-hook-context-on-side-branches.jsonl",
    "v2.1-resent-after-broken-stream.jsonl",
    "v2.1-compaction-unwritten-logical-parent.jsonl",
]


def _steps(path: Path) -> list[dict[str, Any]]:
    """The events, without the tools of the set-up step (a live import writes it before the
    session has used them all)."""
    events = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    return [{k: v for k, v in e.items() if k != "tools"} for e in events]


def test_a_followed_file_that_continues_a_conversation_ends_as_the_whole_import(
    tmp_path: Path,
) -> None:
    # Its first record's parent never comes (it is in another file): the records wait out the
    # window a late parent gets (live.PENDING_WINDOW), and the follow's end writes them all.
    lines = (DATA / "v2.1-continued-from-another-file.jsonl").read_text(encoding="utf-8")
    session = tmp_path / "session.jsonl"
    session.write_text("", encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.jsonl")
    with session.open("a", encoding="utf-8") as out:
        for line in lines.splitlines(keepends=True):
            out.write(line)
            out.flush()
            live.poll()
    assert live.problem is None
    live.finish()
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")
    topics = [e["topic"] for e in _steps(tmp_path / "live.jsonl") if e["kind"] == "import_note"]
    assert topics == ["missing_history", "counts"]


@pytest.mark.parametrize("name", LIVE_CASES)
def test_a_session_written_line_by_line_ends_as_the_whole_import(name: str, tmp_path: Path) -> None:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    session = tmp_path / "session.jsonl"
    session.write_text("", encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.jsonl")
    grew: list[int] = []
    with session.open("a", encoding="utf-8") as out:
        for line in lines:
            out.write(line[:20])  # Claude Code is mid-write: a torn last line
            out.flush()
            live.poll()
            out.write(line[20:])
            out.flush()
            live.poll()
            grew.append(len(live._written))
    assert live.problem is None
    # Settled steps were written while the session ran; the ending only when it stopped.
    assert 0 < grew[len(grew) // 2] <= grew[-1]
    live.finish()
    assert len(live._written) > grew[-1]
    # The same file imported whole once it is written (paths in notes name this copy).
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")
    assert validate_trace(tmp_path / "live.jsonl")[1] == []


def test_a_byte_order_mark_written_a_byte_at_a_time_is_read_past(tmp_path: Path) -> None:
    data = (DATA / LIVE_CASES[0]).read_bytes()
    session = tmp_path / "session.jsonl"
    session.write_bytes(b"")
    live = LiveImport(session, tmp_path / "live.jsonl")
    with session.open("ab") as out:
        for piece in (b"\xef", b"\xbb", b"\xbf", data[:10], data[10:]):
            out.write(piece)
            out.flush()
            live.poll()
    live.finish()
    assert live.problem is None and live.report.unreadable == []
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")
    assert not any("unreadable" in k for k in live.report.skipped)


def test_only_settled_steps_are_written_while_the_session_runs(tmp_path: Path) -> None:
    lines = (
        (DATA / "v2.1-system-records-on-chain.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    session = tmp_path / "session.jsonl"
    session.write_text("".join(lines[:4]), encoding="utf-8")  # prompt, attachment, call, result
    live = LiveImport(session, tmp_path / "live.jsonl")
    live.poll()
    kinds = [e["kind"] for e in _steps(tmp_path / "live.jsonl")]
    assert kinds[-1] == "request" and "response" not in kinds  # the answer may still grow
    with session.open("a", encoding="utf-8") as out:
        out.write(lines[4])  # the next call: the result's journey is now settled
    live.poll()
    kinds = [e["kind"] for e in _steps(tmp_path / "live.jsonl")]
    assert kinds.count("request") == 2
    journey = ("tool_run", "mapping", "wrapping", "appending")
    assert [k for k in kinds if k in journey] == list(journey)
    assert "terminal" not in kinds
    live.finish()
    assert _steps(tmp_path / "live.jsonl")[-1]["kind"] == "terminal"


def test_a_rewritten_transcript_stops_the_follow_with_a_reason(tmp_path: Path) -> None:
    lines = (
        (DATA / "v2.1-system-records-on-chain.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    session = tmp_path / "session.jsonl"
    session.write_text("".join(lines[:6]), encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.jsonl")
    live.poll()
    # The file is replaced by a shorter one that tells another story: read again from the top.
    session.write_text("".join(lines[:5]).replace("Run the tests.", "Lint."), encoding="utf-8")
    live.poll()
    assert live.problem is not None and "changed under step data" in live.problem
    live.finish()
    assert validate_trace(tmp_path / "live.jsonl")[1] == []


def test_is_transcript_tells_a_trace_from_a_transcript(tmp_path: Path) -> None:
    import_claude_code(DATA / "v2.1-api-error.jsonl", tmp_path / "t.jsonl")
    assert is_transcript(DATA / "v2.1-api-error.jsonl")
    assert not is_transcript(tmp_path / "t.jsonl")


def test_import_follow_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (
        (DATA / "v2.1-result-before-assistant.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    session = tmp_path / "session.jsonl"
    session.write_text(lines[0], encoding="utf-8")

    def claude_code() -> None:
        with session.open("a", encoding="utf-8") as out:
            for line in lines[1:]:
                time.sleep(0.05)
                out.write(line)
                out.flush()

    writer = threading.Thread(target=claude_code)
    writer.start()
    out = tmp_path / "t.jsonl"
    assert (
        main(
            ["import", "claude-code", str(session), "--follow", "--idle-exit", "1", "-o", str(out)]
        )
        == 0
    )
    writer.join()
    assert "following" in capsys.readouterr().err
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(out) == _steps(tmp_path / "whole.jsonl")
    assert [e.kind for e in TraceReader(out)][-1] == "terminal"


def test_follow_refuses_a_trace_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import_claude_code(DATA / "v2.1-api-error.jsonl", tmp_path / "t.jsonl")
    assert main(["import", "claude-code", str(tmp_path / "t.jsonl"), "--follow"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already a tracer trace" in err and "t.jsonl:1:" in err


SHARED = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"
REAL = sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []


@pytest.mark.skipif(not REAL, reason=f"fixtures not found at {SHARED}")
@pytest.mark.parametrize("source", REAL, ids=lambda p: p.name)
def test_a_real_session_followed_as_it_was_written(source: Path, tmp_path: Path) -> None:
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    session = tmp_path / "session.jsonl"
    session.write_text("", encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.jsonl")
    with session.open("a", encoding="utf-8") as out:
        for k, line in enumerate(lines):
            out.write(line)
            out.flush()
            if k % 10 == 0:
                live.poll()
    assert live.problem is None
    live.finish()
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_a_follow_as_ctrl_c_does(signum: str, tmp_path: Path) -> None:
    # timeout(1) sends SIGTERM and a closing terminal SIGHUP: the follow still writes the rest
    # (the loop's ending included) instead of dying with its last steps unwritten.
    import os
    import signal

    from tracer.importers.claude_code.live import follow_import

    session = tmp_path / "session.jsonl"
    session.write_bytes((DATA / "v2.1-resent-after-broken-stream.jsonl").read_bytes())
    naps: list[float] = []
    before = signal.getsignal(getattr(signal, signum))

    def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            os.kill(os.getpid(), getattr(signal, signum))
        # Bounded: a follow that lost the signal would poll on forever (these naps sleep not).
        assert len(naps) < 100, "the follow did not stop at the signal"

    live = follow_import(session, tmp_path / "live.jsonl", sleep=nap)
    assert len(naps) == 2  # it stopped at the signal, not at an idle limit
    events = list(TraceReader(tmp_path / "live.jsonl"))
    assert events[-1].kind == "terminal"
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")
    assert live.problem is None
    assert signal.getsignal(getattr(signal, signum)) is before  # the handler was given back


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_a_stop_signal_inside_a_write_loses_no_line(
    signum: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Raised while the writer searched its batch for secrets, the stop lost the batch (taken
    # out of the buffer, not yet written): the header and the first steps were gone, counted as
    # written, and the trace started at step 33. The signal is now only noted, and the loop
    # ends at its next turn with every line written once.
    import os
    import signal

    from tracer.importers.claude_code.live import follow_import
    from tracer.trace.redact import Redactor

    session = tmp_path / "session.jsonl"
    session.write_bytes((DATA / "v2.1-resent-after-broken-stream.jsonl").read_bytes())
    search = Redactor.lines_to_redact
    searches: list[int] = []

    def search_then_stop(self: Redactor, batch: bytes | bytearray) -> Any:
        searches.append(len(batch))
        if len(searches) == 1:
            os.kill(os.getpid(), getattr(signal, signum))
        return search(self, batch)

    monkeypatch.setattr(Redactor, "lines_to_redact", search_then_stop)
    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        # Bounded: a follow that lost the signal would poll on forever (these naps sleep not).
        assert len(naps) < 100, "the follow did not stop at the signal"

    follow_import(session, tmp_path / "live.jsonl", sleep=nap)
    assert naps == [0.25]  # the turn the signal came in ended; no other began
    assert validate_trace(tmp_path / "live.jsonl")[1] == []
    import_claude_code(session, tmp_path / "whole.jsonl")
    assert _steps(tmp_path / "live.jsonl") == _steps(tmp_path / "whole.jsonl")


def test_the_live_header_carries_what_the_one_shot_import_writes(tmp_path: Path) -> None:
    # The live trace's header had no notes (and no version or session id when the follow began
    # before the first versioned record): what the rebuilt requests lack went unsaid.
    name = "v2.1-result-before-assistant.jsonl"
    lines = (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    session = tmp_path / "session.jsonl"
    session.write_text(lines[0], encoding="utf-8")  # the follow starts after the first line
    live = LiveImport(session, tmp_path / "live.jsonl")
    with session.open("a", encoding="utf-8") as out:
        out.writelines(lines[1:])
    live.finish()
    import_claude_code(session, tmp_path / "whole.jsonl")
    header = TraceReader(tmp_path / "live.jsonl").header
    whole = TraceReader(tmp_path / "whole.jsonl").header
    assert header["source"]["live"] is True
    for key in ("version", "session_id", "notes", "format", "path"):
        assert header["source"][key] == whole["source"][key], key
    assert header["source"]["version"] == "2.1.39"
    assert header["created"] == whole["created"]  # when the session began, not the follow
