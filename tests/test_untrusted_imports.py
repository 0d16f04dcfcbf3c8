"""An import reads somebody else's files: it never leaves half a trace, and mends what it can.

The atomic writer leaves no file when the import fails; a Claude Code record of the wrong shape is
mended and counted in the report, not a crash; listing the sessions passes over a FIFO and a
dangling link without waiting on either.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from untrusted_helpers import _one_error, _run

from tracer.trace.schema import validate_trace
from tracer.trace.writer import TraceWriter


def test_an_atomic_writer_leaves_nothing_when_it_fails(tmp_path: Path) -> None:
    from tracer.trace.events import Header, TurnStarted

    target = tmp_path / "out.trace.jsonl"
    header = Header(created="2026-01-01T00:00:00Z", source={"kind": "import"}, tracer_version="x")
    with pytest.raises(RuntimeError), TraceWriter(target, header, atomic=True) as writer:
        writer(TurnStarted(turn=1, message_count=1))
        assert not target.exists()  # the events go to a hidden file until the end
        raise RuntimeError("the importer broke")
    assert list(tmp_path.iterdir()) == []
    with TraceWriter(target, header, atomic=True) as writer:
        writer(TurnStarted(turn=1, message_count=1))
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert len(target.read_text(encoding="utf-8").splitlines()) == 2


def test_an_import_that_fails_leaves_no_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "probes.jsonl"
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}
    log.write_text(json.dumps({"request": {"body": body}, "response": {}}) + "\n", "utf-8")
    out = tmp_path / "out.trace.jsonl"
    code, _, err = _run(capsys, ["import", "api-log", str(log), "-o", str(out)])
    _one_error(code, err, "no main-loop request")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probes.jsonl"]


def test_transcript_records_of_the_wrong_shape_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "message": {"role": "user", "content": "hello"},
    }
    answer = {
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": "hi"}],
        },
    }
    bad = dict(answer, uuid="a2", message=dict(answer["message"], content=[5]))  # type: ignore[arg-type]
    log = tmp_path / "s.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in (good, answer, bad)), "utf-8")
    out = tmp_path / "out.trace.jsonl"
    code, _, err = _run(capsys, ["import", "claude-code", str(log), "-o", str(out)])
    assert code == 0, err
    # The record is mended, not dropped: the block that is not an object is left out, and counted.
    assert "skipped: 1 content blocks that are not objects with a type" in err
    assert validate_trace(out)[1] == []


def test_listing_sessions_skips_a_fifo_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "projects" / "-work"
    project.mkdir(parents=True)
    os.mkfifo(project / "stuck.jsonl")
    (project / "gone.jsonl").symlink_to(tmp_path / "nowhere")
    record = {"type": "user", "message": {"role": "user", "content": "list me"}}
    (project / "real.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    code, out, err = _run(capsys, ["import", "claude-code", "--list"])
    assert code == 0, err
    # Listed without reading the FIFO (it holds nothing yet, so it is not a session yet).
    assert "list me" in out and "stuck.jsonl" not in out and "gone.jsonl" not in out
