"""``tracer doctor TRACE --against WIRE_TRACE`` on a small pair made by hand (no ``claude``
needed): a Claude Code transcript and a wire log of the same session (claude-trace's
request/response pairs, read by ``tracer import api-log`` as ``record --claude-code`` reads its
own capture). They agree apart from what a transcript cannot know; a transcript whose result
says something else is one finding, at its request, message and block, exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from run_helpers import run_tracer

from tracer.doctor.against_findings import AGAINST_JSON_SCHEMA

SESSION = "0b0e5c4e-1111-4222-8333-944445555666"
CALL = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}}
REMINDER = "<system-reminder>\nToday's date is 2026-12-06.\n</system-reminder>"
MARK = {"type": "ephemeral"}
USAGE = {"input_tokens": 10, "output_tokens": 5}


def transcript(result: str) -> list[dict[str, Any]]:
    """Claude Code 2.1's records of a session: a prompt, a call to Bash, its result, an answer."""
    base = {"isSidechain": False, "sessionId": SESSION, "version": "2.1.88", "cwd": "/w"}

    def record(n: int, kind: str, message: dict[str, Any], **more: Any) -> dict[str, Any]:
        parent = f"00000000-0000-4000-8000-00000000000{n - 1}" if n > 1 else None
        return base | {
            "parentUuid": parent,
            "type": kind,
            "uuid": f"00000000-0000-4000-8000-00000000000{n}",
            "timestamp": f"2026-12-06T06:00:0{n}.000Z",
            "message": message,
            **more,
        }

    def answer(ident: str, content: list[Any], stop: str) -> dict[str, Any]:
        return {"id": ident, "type": "message", "role": "assistant", "model": "m",
                "content": content, "stop_reason": stop, "usage": USAGE}  # fmt: skip

    block = {"tool_use_id": "toolu_01", "type": "tool_result", "content": result, "is_error": False}
    return [
        record(1, "user", {"role": "user", "content": "List the files."}),
        record(2, "assistant", answer("msg_01", [CALL], "tool_use"), requestId="req_01"),
        record(3, "user", {"role": "user", "content": [block]}, toolUseResult={"stdout": result}),
        record(4, "assistant", answer("msg_02", [{"type": "text", "text": "Done."}], "end_turn")),
    ]


def wire_log() -> list[dict[str, Any]]:
    """What Claude Code sent for that session: the system prompt, the tools, a reminder, the
    marker on the newest block, and each answer."""
    params = {"model": "m", "max_tokens": 32000, "system": [{"type": "text", "text": "You."}],
              "tools": [{"name": "Bash", "input_schema": {"type": "object"}}]}  # fmt: skip
    reminder = {"type": "text", "text": REMINDER}
    prompt = {"type": "text", "text": "List the files."}
    result = {"tool_use_id": "toolu_01", "type": "tool_result", "content": "a.txt"}
    first = [{"role": "user", "content": [reminder, prompt | {"cache_control": MARK}]}]
    second = [
        {"role": "user", "content": [reminder, prompt]},
        {"role": "assistant", "content": [CALL]},
        {"role": "user", "content": [result | {"is_error": False, "cache_control": MARK}]},
    ]

    def pair(n: int, messages: list[Any], content: list[Any], stop: str) -> dict[str, Any]:
        body = {"id": f"msg_0{n}", "type": "message", "role": "assistant", "model": "m",
                "content": content, "stop_reason": stop, "usage": USAGE}  # fmt: skip
        return {
            "request": {"timestamp": 1796536800.0 + n, "method": "POST",
                        "url": "https://api.anthropic.com/v1/messages",
                        "body": params | {"messages": messages}},
            "response": {"timestamp": 1796536800.5 + n, "status_code": 200, "body": body},
        }  # fmt: skip

    return [
        pair(1, first, [CALL], "tool_use"),
        pair(2, second, [{"type": "text", "text": "Done."}], "end_turn"),
    ]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def wire(tmp_path: Path) -> Path:
    log = write(tmp_path / "wire.log.jsonl", wire_log())
    trace = tmp_path / "wire.trace.jsonl"
    done = run_tracer("import", "api-log", str(log), "-o", str(trace))
    assert done.returncode == 0, done.stderr
    return trace


def test_the_pair_agrees_apart_from_what_the_transcript_cannot_know(
    wire: Path, tmp_path: Path
) -> None:
    source = write(tmp_path / "s.jsonl", transcript("a.txt"))
    done = run_tracer("doctor", str(source), "--against", str(wire), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    jsonschema.validate(report, AGAINST_JSON_SCHEMA)
    assert (report["wire_requests"], report["rebuilt_requests"]) == (2, 2)
    assert report["differences"] == []
    assert {u["what"]: u["count"] for u in report["unknowable"]} == {
        "system": 2,
        "tools": 2,
        "params": 2,  # max_tokens
        "reminders": 2,
        "cache_control": 2,
    }


def test_a_result_the_transcript_tells_otherwise_is_found(wire: Path, tmp_path: Path) -> None:
    source = write(tmp_path / "s.jsonl", transcript("b.txt"))
    imported = tmp_path / "s.trace.jsonl"
    assert run_tracer("import", "claude-code", str(source), "-o", str(imported)).returncode == 0
    for given in (source, imported):  # the transcript itself, or its import: the same report
        done = run_tracer("doctor", str(given), "--against", str(wire), "--json")
        assert done.returncode == 1, done.stderr
        jsonschema.validate(json.loads(done.stdout), AGAINST_JSON_SCHEMA)
        (found,) = json.loads(done.stdout)["differences"]
        assert (found["kind"], found["request"], found["message_index"]) == ("block-differs", 2, 2)
        assert found["block_index"] == 0 and "b.txt" in found["message"]
    done = run_tracer("doctor", str(imported), "--against", str(wire), "--lang", "zh")
    assert done.returncode == 1
    assert "第2次请求的第2条消息：第0个块不同" in done.stdout
    assert done.stdout.splitlines()[-1] == f"{imported}：与发出的请求有1处不同"
    assert "系统提示词，共2次请求" in done.stdout


def test_a_wire_that_is_not_a_trace_is_one_line_exit_2(tmp_path: Path) -> None:
    source = write(tmp_path / "s.jsonl", transcript("a.txt"))
    done = run_tracer("doctor", str(source), "--against", str(source))
    assert done.returncode == 2
    assert done.stderr.strip() == f"tracer: {source}:1: not a tracer trace " + (
        "(give the trace `tracer record --claude-code` wrote)"
    )
    done = run_tracer("doctor", str(source), "--against", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
