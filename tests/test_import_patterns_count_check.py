"""Every tool block of a source is in the trace or named, and odd records are counted, not fatal.

The count check is redone here by hand, over every record of every transcript we have (progress
records and agent files included): each tool use and result is asked, run, or named as missing,
with a rewound branch's call named for why. Records of the wrong shape (a block that is not an
object, an id that is not a string, a result whose content is neither text nor blocks, a
progress record of an odd type) are counted in the report and still make a valid trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from import_helpers import (
    SHARED,
    TRANSCRIPTS,
    of_kind,
    records_of,
    write_records,
)

from tracer.cli.main import main
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

EVERY = TRANSCRIPTS + (sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else [])


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_every_tool_block_of_the_source_is_in_the_trace_or_named(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    report = import_claude_code(path, out)
    events = list(TraceReader(out))
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    counts = note.data
    # Counted here once more, by hand: every block of every record, progress records included.
    blocks = [b for r in _source(path) for b in _content(r)]
    uses = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
    results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
    assert (counts["source_tool_use"], counts["source_tool_result"]) == (len(uses), len(results))
    asked = {t for e in of_kind(events, "follow_up") for t in e.tool_use_ids}
    ran = {e.tool_use_id for e in of_kind(events, "tool_run")}
    assert counts["trace_tool_calls"] == len(asked) and counts["trace_tool_runs"] == len(ran)
    named = {(m["kind"], m["id"]) for m in counts["missing"]}
    # A result whose call is in no record of the file, carried in a message of the trace: the
    # file continues a conversation that began elsewhere, and no tool_run can hold it.
    carried = {b.get("tool_use_id") for e in of_kind(events, "message") for b in _blocks(e)}
    before = {r for r in results - ran if r not in uses and r in carried}
    assert counts["answers_before_the_file"] == len(before)
    assert {("tool_use", u) for u in uses - asked} | {
        ("tool_result", r) for r in results - ran - before
    } == named
    assert counts["misplaced"] == []
    assert any(n.startswith("count check:") for n in report.notes)


def _content(rec: dict[str, Any]) -> list[dict[str, Any]]:
    data = rec.get("data")
    if rec.get("type") == "progress" and isinstance(data, dict):
        rec = data.get("message") if isinstance(data.get("message"), dict) else {}
    content = (
        (rec.get("message") or {}).get("content") if isinstance(rec.get("message"), dict) else None
    )
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _blocks(message: Any) -> list[dict[str, Any]]:
    """The content blocks of a recorded ``message`` event."""
    content = message.content
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _source(path: Path) -> list[dict[str, Any]]:
    """The records of a transcript and of the agent files beside it (2.0 layout)."""
    files = [path]
    if path.parent.name.startswith("layout-2.0"):
        files += sorted(path.parent.glob("agent-*.jsonl"))
    return [json.loads(x) for f in files for x in f.read_text(encoding="utf-8").splitlines() if x]


def test_a_tool_call_on_a_rewound_branch_is_named_in_the_count_check(tmp_path: Path) -> None:
    records = records_of("v2.1-orphan-result.jsonl")
    prompt = records[0]
    tried = {
        **records[1],
        "uuid": "as-tried",
        "parentUuid": "us-retry",
        "message": {
            **records[1]["message"],
            "id": "msg_tried",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_tried",
                    "name": "Bash",
                    "input": {"command": "ls"},
                }
            ],
        },
    }
    retry = {**prompt, "uuid": "us-retry", "message": {"role": "user", "content": "Read it."}}
    path = tmp_path / "s.jsonl"
    path.write_text(
        "".join(json.dumps(r) + "\n" for r in [retry, tried, *records]), encoding="utf-8"
    )
    report = import_claude_code(path, tmp_path / "t.jsonl")
    (line,) = [n for n in report.notes if n.startswith("count check:")]
    assert line.endswith(
        f"not in the trace: tool_use toolu_tried (assistant, {path}:2) (left out: records off "
        "the active branch (rewound or edited), from line 1; its 1 tool call(s) never ran)"
    )
    assert report.skipped == {"records off the active branch (rewound or edited)": 2}


def test_malformed_records_are_counted_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of("v2.1-system-records-on-chain.jsonl")
    records[2]["message"]["content"] = [7, *records[2]["message"]["content"]]  # a block, not {}
    records[1]["uuid"] = 12  # an id that is not a string
    records.insert(3, {**records[3], "uuid": "bad", "message": ["not", "an", "object"]})
    records.append(
        {
            "type": "assistant",
            "uuid": "x",
            "parentUuid": [],
            "message": {"content": 5, "usage": "none"},
        }
    )
    path = write_records(tmp_path / "s.jsonl", records)
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 content blocks that are not objects with a type" in err
    assert "1 user records without a message object" in err
    assert "fields of the wrong type (uuid; read as missing)" in err
    assert validate_trace(out)[1] == []


def test_a_result_whose_content_is_neither_text_nor_blocks_still_makes_a_valid_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fuzzer's retype: a tool_result whose content is -1, and a block with no type. The import
    # used to write them as they were, and then every reader refused the trace it had written.
    records = records_of("v2.1-result-before-assistant.jsonl")
    answered = next(r for r in records if r.get("toolUseResult") is not None)
    block = answered["message"]["content"][0]
    block["content"] = -1
    answered["message"]["content"].append({"text": "a block without a type"})
    path = write_records(tmp_path / "s.jsonl", records)
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(path), "-o", str(out)]) == 0
    assert "1 content blocks that are not objects with a type" in capsys.readouterr().err
    assert validate_trace(out)[1] == []
    by_id = {e.tool_use_id: e for e in of_kind(list(TraceReader(out)), "mapping")}
    assert by_id[block["tool_use_id"]].block["content"] == "-1"  # read as its JSON text
    assert main(["export", str(out), "--format", "md", "-o", str(tmp_path / "t.md")]) == 0


def test_a_progress_record_whose_data_type_is_not_text_is_counted_not_fatal(
    tmp_path: Path,
) -> None:
    records = records_of("v2.1-result-before-assistant.jsonl")
    odd = {"type": "progress", "uuid": "p-odd", "parentUuid": None, "data": {"type": ["hook"]}}
    path = write_records(tmp_path / "s.jsonl", [odd, *records])
    report = import_claude_code(path, tmp_path / "t.jsonl")
    assert report.skipped["progress records"] == 1
    assert validate_trace(tmp_path / "t.jsonl")[1] == []
