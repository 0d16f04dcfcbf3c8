"""An API log holding two conversations interleaved imports each as its own loop.

``--thread N`` picks one, ``--list`` names them, a thread that is not there is one line and exit
2; without ``--thread`` each conversation goes into a trace of its own, and the import says where.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from import_helpers import (
    of_kind,
)

from tracer.cli.main import main
from tracer.doctor import run_doctor
from tracer.trace.reader import TraceReader


def _conversation(prompt: str, command: str, answer: str, t0: float) -> list[dict[str, Any]]:
    """Two requests of one agent loop: a Bash call, then the answer."""
    tools = [{"name": "Bash", "input_schema": {"type": "object"}}]
    first = {
        "model": "big",
        "max_tokens": 100,
        "tools": tools,
        "messages": [{"role": "user", "content": prompt}],
    }
    call = {
        "type": "tool_use",
        "id": f"toolu_{command}",
        "name": "Bash",
        "input": {"command": command},
    }
    second = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": [call]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "ok"}],
            },
        ],
    }

    def pair(body: dict[str, Any], content: list[Any], stop: str, t: float) -> dict[str, Any]:
        message = {
            "type": "message",
            "id": f"msg_{t}",
            "model": "big",
            "role": "assistant",
            "content": content,
            "stop_reason": stop,
            "usage": {"output_tokens": 3},
        }
        return {
            "request": {
                "timestamp": t,
                "method": "POST",
                "headers": {},
                "url": "https://api.anthropic.com/v1/messages",
                "body": body,
            },
            "response": {"timestamp": t + 1, "status_code": 200, "body": message},
        }

    return [
        pair(first, [call], "tool_use", t0),
        pair(second, [{"type": "text", "text": answer}], "end_turn", t0 + 10),
    ]


def test_an_api_log_with_two_conversations_imports_each_as_its_own_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _conversation("list the files", "ls", "three files", 0)
    two = _conversation("show the date", "date", "it is Monday", 1)
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(p) + "\n" for p in [one[0], two[0], one[1], two[1]]), encoding="utf-8"
    )
    runs = {}
    for n in (1, 2):
        out = tmp_path / f"t{n}.jsonl"
        assert main(["import", "api-log", str(log), "-o", str(out), "--thread", str(n)]) == 0
        events = list(TraceReader(out))
        runs[n] = [e.input["command"] for e in of_kind(events, "tool_run")]
        assert of_kind(events, "session_start")[0].prompt in ("list the files", "show the date")
        assert [e.reason for e in of_kind(events, "terminal")] == ["completed"]
        assert run_doctor(TraceReader(out)) == []
    assert runs == {1: ["ls"], 2: ["date"]}
    err = capsys.readouterr().err
    assert "the log holds 2 conversations" in err and "thread 2: big, 2 request(s)" in err
    assert main(["import", "api-log", str(log), "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "thread 1: big, 2 request(s), 1 tool call(s): list the files",
        "thread 2: big, 2 request(s), 1 tool call(s): show the date",
    ]
    assert (
        main(["import", "api-log", str(log), "-o", str(tmp_path / "x.jsonl"), "--thread", "3"]) == 2
    )
    assert "there is no thread 3" in capsys.readouterr().err
    # Without --thread, each conversation goes into a trace of its own, and the import says so.
    assert main(["import", "api-log", str(log), "-o", str(tmp_path / "all.trace.jsonl")]) == 0
    err = capsys.readouterr().err
    second = tmp_path / "all.thread-2.trace.jsonl"
    assert (
        f"each conversation went into its own trace: thread 1 → {tmp_path / 'all.trace.jsonl'}; "
        f"thread 2 → {second}"
    ) in err
    assert f"wrote {second}" in err
    commands = {
        out.name: [e.input["command"] for e in of_kind(list(TraceReader(out)), "tool_run")]
        for out in (tmp_path / "all.trace.jsonl", second)
    }
    assert commands == {"all.trace.jsonl": ["ls"], "all.thread-2.trace.jsonl": ["date"]}
    assert run_doctor(TraceReader(second)) == []
