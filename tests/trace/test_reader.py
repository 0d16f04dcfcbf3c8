"""Writing and reading traces: round trips, torn last lines, and one-line errors for bad files."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tracer.errors import UserError
from tracer.files.paths import ROOT
from tracer.trace.events import VERSION, DebugHook, Header, TurnStarted, UnknownEvent
from tracer.trace.reader import TraceReader
from tracer.trace.writer import EventList, TraceWriter

HEADER = Header(
    created="2026-01-01T00:00:00Z", source={"kind": "scenario", "name": "t"}, tracer_version="0"
)


def _write(path: Path, events: list[Any]) -> Path:
    with TraceWriter(path, HEADER) as writer:
        for event in events:
            writer(event)
    return path


def test_round_trip_with_an_unknown_kind(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.jsonl",
        [
            TurnStarted(turn=1, message_count=3),
            DebugHook(turn=1, hook="loop_turn", line="[DEBUG] Loop turn: 1 messages: 3"),
        ],
    )
    with path.open("a") as fh:
        fh.write(json.dumps({"kind": "from_the_future", "seq": 3, "turn": 1, "x": [1]}) + "\n")
        fh.write("\n")  # blank lines are skipped
        fh.write(
            json.dumps(
                {
                    "kind": "turn_start",
                    "stage": "turn_start",
                    "seq": 4,
                    "turn": 2,
                    "message_count": 7,
                }
            )
            + "\n"
        )
    reader = TraceReader(path)
    assert reader.header["format"] == "tracer" and reader.header["version"] == VERSION
    assert len(reader) == 4
    assert reader[0] == TurnStarted(seq=1, turn=1, t=reader[0].t, message_count=3)
    assert reader[1].line == "[DEBUG] Loop turn: 1 messages: 3"
    assert isinstance(reader[2], UnknownEvent) and reader[2].raw["x"] == [1]
    assert reader[-1].message_count == 7
    assert [reader.kind_of(i) for i in range(4)] == [
        "turn_start",
        "debug_hook",
        "from_the_future",
        "turn_start",
    ]
    assert [reader.is_step(i) for i in range(4)] == [True, False, False, True]
    assert reader.torn_line is None and reader.torn_notice() is None
    with pytest.raises(IndexError):
        reader[4]


def test_the_writer_numbers_and_flushes_each_event(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, HEADER)
    stamped = writer(TurnStarted(turn=1, message_count=1))
    assert stamped.seq == 1
    # Flushed at once: a reader sees it while the writer is still open.
    assert len(TraceReader(path)) == 1
    writer(TurnStarted(turn=2, message_count=5))
    writer.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("seq") for line in lines] == [None, 1, 2]


def test_event_list_stamps_like_the_writer() -> None:
    events = EventList()
    events(TurnStarted(turn=1, message_count=1))
    events(TurnStarted(turn=2, message_count=2))
    assert [e.seq for e in events.events] == [1, 2]


def test_refresh_picks_up_appended_events_and_waits_for_a_torn_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [TurnStarted(turn=1, message_count=3)])
    reader = TraceReader(path)
    line = json.dumps(
        {"kind": "turn_start", "stage": "turn_start", "seq": 2, "turn": 2, "message_count": 7}
    )
    with path.open("a") as fh:
        fh.write(line[:20])
    assert reader.refresh() == 0
    assert reader.torn_line == 3
    with path.open("a") as fh:
        fh.write(line[20:] + "\n")
    assert reader.refresh() == 1
    assert reader.torn_line is None and reader[1].message_count == 7


def test_kinds_stay_right_as_lines_are_appended(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [TurnStarted(turn=1, message_count=3)])
    reader = TraceReader(path)
    assert reader.kind_of(0) == reader.kind_of(-1) == "turn_start"
    with path.open("a") as fh:  # a line a hand wrote, kind not first
        fh.write(json.dumps({"seq": 2, "kind": "future_kind", "x": 1}) + "\n")
    assert reader.refresh() == 1
    assert [reader.kind_of(i) for i in range(len(reader))] == ["turn_start", "future_kind"]
    assert reader.kind_of(-1) == "future_kind"
    with pytest.raises(IndexError):
        reader.kind_of(2)


def test_a_file_cut_mid_line_keeps_every_complete_event(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [TurnStarted(turn=i, message_count=i) for i in (1, 2, 3)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 10])
    reader = TraceReader(path)
    assert len(reader) == 2
    assert reader.torn_line == 4
    assert "line 4" in reader.torn_notice() and "2 complete events" in reader.torn_notice()


def test_a_recorder_killed_part_way_leaves_a_readable_trace(tmp_path: Path) -> None:
    scenario = tmp_path / "slow.yaml"
    scenario.write_text(
        "name: slow\nprompt: go\npermissions: {allow: [Bash]}\nresponses:\n"
        # The first command is quick, so its result is soon on disk; the next still runs.
        + "  - tool_use: [{name: Bash, input: {command: 'echo 0'}}]\n"
        + "".join(
            f"  - tool_use: [{{name: Bash, input: {{command: 'echo {i}; sleep 2'}}}}]\n"
            for i in range(1, 5)
        )
        + "  - text: done\n",
        encoding="utf-8",
    )
    trace = tmp_path / "killed.trace.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracer", "record", "--scenario", str(scenario), "-o", str(trace)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        # Wait until the first tool result is on disk, then kill without warning.
        while time.monotonic() < deadline:
            if trace.exists() and b'"kind":"wrapping"' in trace.read_bytes():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the recorder never wrote its first result")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    # Write a half line, as a kill in the middle of a write leaves.
    with trace.open("ab") as fh:
        fh.write(b'{"kind":"tool_run","stage":"tool_run","seq":99,"tur')
    reader = TraceReader(trace)
    events = list(reader)
    assert reader.torn_line == len(reader) + 2
    assert any(e.kind == "wrapping" for e in events)
    assert all(e.kind != "terminal" for e in events), "it never finished"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))

    from tracer.trace.schema import validate_trace

    count, problems, notes = validate_trace(trace)
    assert problems == [] and count == len(events)
    assert any("ends mid-event" in note for note in notes)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "empty file, not a tracer trace"),
        (b"hello\n", ":1: not a tracer trace (line 1 is not JSON)"),
        (b'{"format": "other", "version": 1}\n', ':1: not a tracer trace (line 1 has no "format"'),
        (b'{"format": "tracer"}\n', ':1: trace header has no integer "version"'),
        (b'{"format": "tracer", "version": 99}\n', ":1: written by a newer tracer"),
    ],
    ids=["empty", "not-json", "other-format", "no-version", "newer"],
)
def test_bad_headers_are_user_errors(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(UserError) as err:
        TraceReader(path)
    assert str(err.value).startswith(str(path))
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_a_byte_order_mark_before_the_header_is_read_past(tmp_path: Path) -> None:
    """A trace an editor saved with a BOM opens, validates and reads the same events."""
    events = [
        TurnStarted(turn=1, message_count=3),
        DebugHook(turn=1, hook="loop_turn", line="[DEBUG] Loop turn: 1 messages: 3"),
    ]
    plain = _write(tmp_path / "plain.jsonl", events)
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    read_plain, read_marked = TraceReader(plain), TraceReader(marked)
    assert read_marked.header == read_plain.header
    assert [e.to_dict() for e in read_marked] == [e.to_dict() for e in read_plain]
    from tracer.trace.schema import validate_trace

    assert validate_trace(marked)[:2] == (len(events), [])
    # Only at the start of the file: a mark anywhere else is still not JSON.
    marked.write_bytes(plain.read_bytes() + b"\xef\xbb\xbf{}\n")
    with pytest.raises(UserError, match=r":4: "):
        list(TraceReader(marked))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        TraceReader(tmp_path / "nope.jsonl")
    with pytest.raises(UserError, match="is a directory"):
        TraceReader(tmp_path)


def test_bad_json_mid_file_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [TurnStarted(turn=1, message_count=3)])
    with path.open("a") as fh:
        fh.write("{not json}\n")
        fh.write(json.dumps({"kind": "turn_start", "seq": 3, "turn": 1}) + "\n")
    reader = TraceReader(path)
    assert len(reader) == 3 and reader.torn_line is None
    with pytest.raises(UserError) as err:
        reader[1]
    assert str(err.value).startswith(f"{path}:3: not valid JSON")
    with pytest.raises(UserError) as err:
        reader[2]
    assert str(err.value) == f"{path}:4: turn_start event: missing message_count"


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_line_offsets_are_found_the_same_in_any_chunking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """The chunk-at-a-time indexing finds every line where a plain split finds it: blank lines
    skipped, lines across chunk edges whole, a last line without its newline left torn."""
    import random

    from tracer.trace import line_index
    from tracer.trace.reader import TraceReader

    header = json.dumps({"format": "tracer", "version": 1, "chapter": "ch12", "source": {}})
    rows = [header]
    generator = random.Random(chunk)
    for n in range(300):
        rows.append("" if generator.random() < 0.1 else json.dumps({"kind": "x", "n": "y" * n}))
    data = ("\n".join(rows) + "\n" + '{"kind": "torn"').encode()
    path = tmp_path / "t.trace.jsonl"
    path.write_bytes(data)
    expected, at = [], 0
    for line in data.split(b"\n")[:-1]:
        if line and at:  # (not the header)
            expected.append((at, at + len(line)))
        at += len(line) + 1
    monkeypatch.setattr(line_index, "_CHUNK", chunk)
    try:
        reader = TraceReader(path)
    except UserError as exc:  # the header itself may not validate: then this test says so
        pytest.fail(str(exc))
    assert list(zip(reader._offsets, reader._ends, strict=True)) == expected
    assert reader.torn_line == len(expected) + 2
