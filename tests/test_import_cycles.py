"""A transcript whose ``parentUuid`` links go round in a circle (a record naming itself, or one of
its own descendants, as its parent) is damage, not a conversation. Walking such links used to go
round forever, in ``import claude-code`` and in ``--follow`` alike; now the walk stops, and the
records caught in the circle are skipped under their own name."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracer.importers.claude_code.importer import import_claude_code
from tracer.importers.claude_code.live import LiveImport
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"
SOURCE = DATA / "v2.1-system-records-on-chain.jsonl"


@pytest.fixture(autouse=True)
def _bounded() -> Iterator[None]:
    """A regression would hang: fail after a few seconds instead."""

    def stop(*_: Any) -> None:
        raise TimeoutError("the import went round in a circle")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _records() -> list[dict[str, Any]]:
    return [json.loads(x) for x in SOURCE.read_text(encoding="utf-8").splitlines()]


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _runs(out: Path) -> list[str]:
    return [e.tool_use_id for e in TraceReader(out) if e.kind == "tool_run"]


def test_a_record_that_is_its_own_parent(tmp_path: Path) -> None:
    records = _records()
    assert records[3]["uuid"] == "us-main-004"  # the first tool result
    records[3]["parentUuid"] = "us-main-004"
    out = tmp_path / "t.jsonl"
    report = import_claude_code(_write(tmp_path, records), out)
    # The result, and the two records hanging below it, can reach neither a root nor the path.
    assert report.skipped["records whose parentUuid chain goes round in a cycle"] == 4
    assert _runs(out) == ["toolu_s3"]
    assert validate_trace(out)[1] == []


def test_a_chain_that_loops_back_to_its_own_leaf(tmp_path: Path) -> None:
    records = _records()
    records[0]["parentUuid"] = records[4]["uuid"]  # the first prompt hangs off a later answer
    path = _write(tmp_path, records)
    out = tmp_path / "t.jsonl"
    report = import_claude_code(path, out)
    (note,) = [n for n in report.notes if "cycle" in n]
    assert note.startswith(f"{path}:5: the parentUuid chain loops back to record as-main-005")
    assert validate_trace(out)[1] == []


def test_a_circle_off_the_active_branch(tmp_path: Path) -> None:
    records = _records()
    a = {**records[2], "uuid": "c1", "parentUuid": "c2"}
    b = {**records[2], "uuid": "c2", "parentUuid": "c1"}
    a["message"] = {**a["message"], "id": "msg_c1", "content": [{"type": "text", "text": "x"}]}
    b["message"] = {**b["message"], "id": "msg_c2", "content": [{"type": "text", "text": "y"}]}
    report = import_claude_code(_write(tmp_path, [a, b, *records]), tmp_path / "t.jsonl")
    assert report.skipped["records whose parentUuid chain goes round in a cycle"] == 2
    assert _runs(tmp_path / "t.jsonl") == ["toolu_s1", "toolu_s2", "toolu_s3"]


def test_follow_stops_too(tmp_path: Path) -> None:
    records = _records()
    records[3]["parentUuid"] = "us-main-004"
    lines = [json.dumps(r) + "\n" for r in records]
    session = tmp_path / "s.jsonl"
    session.write_text("", encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.jsonl")
    with session.open("a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line)
            fh.flush()
            live.poll()
    live.finish()
    # What was settled before the damaged line arrived stays; then one line says why the
    # follow wrote no more (the damaged record took the steps already written off the path).
    assert live.problem is not None and live.problem.startswith(f"{session}: ")
    assert _runs(tmp_path / "live.jsonl") == []
    assert validate_trace(tmp_path / "live.jsonl")[1] == []
