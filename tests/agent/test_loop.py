"""The loop, turn by turn: ``query_loop`` as chapter 12 tells it, proved on recorded traces.

Each test scripts the model's answers, records a session through the real SDK and the scripted
SSE transport, and reads the trace back: the trace is the loop's only output, so it is what we
check.
"""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.loop import State, needs_follow_up
from tracer.agent.permissions import REJECT_MESSAGE
from tracer.agent.tool_checks import CANCEL_MESSAGE
from tracer.agent.tool_run import INTERRUPT_MESSAGE_FOR_TOOL_USE
from tracer.agent.tools.read import READ_REMINDER, ReadTool
from tracer.cli.main import main as cli_main
from tracer.files.paths import SCENARIOS_DIR
from tracer.model.internal_messages import MISSING_RESULT_MESSAGE
from tracer.trace.schema import validate_trace

MAIN_SCENARIO = SCENARIOS_DIR / "01-main-walk.yaml"
GLOB = {"name": "Glob", "input": {"pattern": "*.txt"}}


def _glob_turns(n: int) -> list[dict[str, Any]]:
    return [{"text": f"turn {i}", "tool_use": [GLOB]} for i in range(n)]


def _bodies_text(rec: Any) -> str:
    return "\n".join(json.dumps(body, ensure_ascii=False) for body in rec.requests())


# -- State and needs_follow_up --------------------------------------------------------------


def test_state_starts_at_turn_one(record: Any) -> None:
    assert State(messages=[]).turn_count == 1
    rec = record({"responses": [{"text": "hello"}]})
    first = rec.of("turn_start")[0]
    assert first.turn == 1 and first.message_count == 1


def test_needs_follow_up_looks_only_at_blocks() -> None:
    assert needs_follow_up([{"type": "text", "text": "x"}, {"type": "tool_use", "id": "a"}])
    assert not needs_follow_up([{"type": "text", "text": "x"}, {"type": "thinking"}])
    assert not needs_follow_up([])


def test_tool_use_with_end_turn_stop_reason_still_follows_up(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Glob"]},
            "responses": [
                {
                    "blocks": [{"type": "tool_use", "name": "Glob", "input": {"pattern": "*"}}],
                    "stop_reason": "end_turn",
                },
                {"text": "done"},
            ],
        }
    )
    first = rec.of("follow_up")[0]
    assert rec.of("response")[0].stop_reason == "end_turn"
    assert first.needs_follow_up is True and len(first.tool_use_ids) == 1
    assert len(rec.of("request")) == 2
    assert rec.terminal.reason == "completed" and rec.terminal.turn_count == 2


def test_tool_use_stop_reason_without_a_block_ends_the_loop(record: Any) -> None:
    rec = record(
        {
            "responses": [
                {"text": "no tools here", "stop_reason": "tool_use"},
                {"text": "never asked for"},
            ]
        }
    )
    assert rec.one("response").stop_reason == "tool_use"
    decided = rec.one("follow_up")
    assert decided.needs_follow_up is False and decided.tool_use_ids == []
    assert rec.hook_lines()[-1] == "[DEBUG] needsFollowUp: false tool_use blocks: 0"
    assert rec.terminal.reason == "completed" and rec.terminal.turn_count == 1
    assert len(rec.of("request")) == 1


# -- one internal message per streamed block ------------------------------------------------


def test_each_block_is_its_own_assistant_message_with_one_message_id(main_walk: Any) -> None:
    response = main_walk.of("response")[0]
    pieces = [main_walk.messages[u] for u in response.assistant_uuids]
    assert [p.type for p in pieces] == ["assistant"] * 3
    assert [p.content[0]["type"] for p in pieces] == ["thinking", "text", "tool_use"]
    assert all(len(p.content) == 1 for p in pieces)
    assert {p.message_id for p in pieces} == {response.message_id}
    # ... and the next request merges them back into one API message of three blocks.
    second = main_walk.requests()[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert [b["type"] for b in second[1]["content"]] == ["thinking", "text", "tool_use"]


def test_the_wrapped_message_carries_the_raw_output_and_its_source(main_walk: Any) -> None:
    for wrap in main_walk.of("wrapping"):
        message = main_walk.messages[wrap.message_uuid]
        run = next(r for r in main_walk.of("tool_run") if r.tool_use_id == wrap.tool_use_id)
        assert message.type == "user" and message.origin == "tool_result"
        assert message.content[0] == main_walk.result_for(wrap.tool_use_id)
        assert message.source_tool_assistant_uuid == wrap.source_tool_assistant_uuid
        asked = main_walk.messages[wrap.source_tool_assistant_uuid]
        assert asked.content[0]["id"] == wrap.tool_use_id
        assert main_walk.reader.tool_use_result(message) == run.output


def test_appending_counts_match_the_chapter(main_walk: Any) -> None:
    appended = main_walk.of("appending")
    assert [(a.before_count, a.after_count) for a in appended] == [(3, 7), (7, 11), (11, 15)]
    assert all(a.assistant_count == 3 and a.tool_result_count == 1 for a in appended)
    assert [a.api_after_count for a in appended] == [3, 5, 7]


# -- the chapter's debug hooks --------------------------------------------------------------

BOOK_LINES = [
    "[DEBUG] Loop turn: 1 messages: 3",
    "[DEBUG] Loop turn: 2 messages: 7",
    "[DEBUG] Loop turn: 3 messages: 11",
]


def test_debug_flag_prints_the_books_lines_and_hooks_repeats_them(
    tmp_path: Path, tracer_cli: Any, tracer_here: Any
) -> None:
    out = tmp_path / "walk.trace.jsonl"
    proc = tracer_here("record", "--scenario", str(MAIN_SCENARIO), "-o", str(out), "--debug")
    assert proc.returncode == 0, proc.stderr
    debug = [line for line in proc.stderr.splitlines() if line.startswith("[DEBUG]")]
    loop_turns = [line for line in debug if line.startswith("[DEBUG] Loop turn:")]
    assert loop_turns[:3] == BOOK_LINES
    assert loop_turns[3:] == ["[DEBUG] Loop turn: 4 messages: 15"]  # the answering turn
    assert "[DEBUG] Tool result: Bash is_error: false content length: 266" in debug
    # Read's block has no is_error field at all, and console.log prints that as undefined.
    # (its length counts the empty last line and the <system-reminder> block the mapping adds)
    assert "[DEBUG] Tool result: Read is_error: undefined content length: 272" in debug
    assert debug[-1] == "[DEBUG] needsFollowUp: false tool_use blocks: 0"

    hooks = tracer_cli("hooks", str(out))
    assert hooks.returncode == 0, hooks.stderr
    assert hooks.stdout.splitlines() == debug


# -- max turns --------------------------------------------------------------------------------


def test_max_turns_is_a_strict_check(record: Any) -> None:
    rec = record({"permissions": {"allow": ["Glob"]}, "max_turns": 2, "responses": _glob_turns(4)})
    assert len(rec.of("request")) == 2, "the model is called max_turns times"
    checks = rec.of("max_turns_check")
    assert [(c.next_turn_count, c.exceeded) for c in checks] == [(2, False), (3, True)]
    assert rec.terminal.reason == "max_turns" and rec.terminal.turn_count == 3
    last_message = rec.of("message")[-1]
    assert last_message.type == "attachment"
    assert last_message.attachment["type"] == "max_turns_reached"
    assert last_message.attachment["maxTurns"] == 2
    # The second turn's tool result was made and wrapped, but no request ever carried it.
    last_wrap = rec.of("wrapping")[-1]
    assert last_wrap.turn == 2
    assert last_wrap.tool_use_id not in _bodies_text(rec)
    assert validate_trace(rec.path)[1] == []


def test_max_turns_option_overrides_the_scenario(tmp_path: Path, open_recording: Any) -> None:
    out = tmp_path / "t.trace.jsonl"
    code = cli_main(
        ["record", "--scenario", str(MAIN_SCENARIO), "-o", str(out), "--max-turns", "1"]
    )
    assert code == 0
    rec = open_recording(out)
    assert rec.one("session_start").max_turns == 1
    assert len(rec.of("request")) == 1
    assert rec.terminal.reason == "max_turns" and rec.terminal.turn_count == 2


# -- model errors and retries ---------------------------------------------------------------


def test_model_error_after_the_sdks_retries(record: Any) -> None:
    rec = record(
        {
            "responses": [
                {
                    "text": "never seen",
                    "faults": [{"status": 529}, {"status": 529}, {"status": 529}],
                }
            ]
        }
    )
    attempts = rec.of("http_attempt")
    assert [a.status for a in attempts] == [529, 529, 529]
    assert [a.attempt for a in attempts] == [1, 2, 3]
    assert rec.of("response") == []
    assert rec.terminal.reason == "model_error"
    assert "529" in rec.terminal.error and "overloaded" in rec.terminal.error
    assert validate_trace(rec.path)[1] == []


def test_an_api_error_leaves_the_history_as_it_is_and_says_api_error(record: Any) -> None:
    # 2.1.88: queryModel yields an "API Error: …" assistant message and query.ts returns
    # completed; nothing closes the unanswered tool_use in the internal list (that is
    # yieldMissingToolResultBlocks, on the path where the call throws).
    rec = record(
        {
            "permissions": {"allow": ["Glob"]},
            "faults": {"drop_tool_result": ["all"]},
            "responses": [{"tool_use": [GLOB]}, {"text": "x", "faults": [{"status": 500}] * 3}],
        },
        validator=lambda payload: None,
    )  # let the broken request through: the 500s fail it
    assert [a.status for a in rec.of("http_attempt")] == [500, 500, 500]
    assert rec.terminal.reason == "model_error"
    tool_use_id = rec.of("follow_up")[0].tool_use_ids[0]
    # One made-up result: the one ensureToolResultPairing put in the request that failed.
    synthetic = [m for m in rec.of("message") if m.origin == "synthetic" and m.type == "user"]
    assert [m.content[0] for m in synthetic] == [
        {
            "type": "tool_result",
            "content": MISSING_RESULT_MESSAGE,
            "is_error": True,
            "tool_use_id": tool_use_id,
        }
    ]
    assert rec.of("request")[-1].pairing == {"added": [tool_use_id], "stripped": []}
    last = rec.of("message")[-1]
    assert last.type == "assistant" and last.origin == "synthetic"
    assert last.content[0]["text"].startswith("API Error: 500")


def test_a_clean_first_attempt_logs_no_http_attempt(main_walk: Any) -> None:
    assert main_walk.of("http_attempt") == []
    assert all(r.attempts == 1 for r in main_walk.of("response"))


def test_a_429_is_retried_by_the_sdk(record: Any) -> None:
    rec = record({"responses": [{"text": "after a retry", "faults": [{"status": 429}]}]})
    assert [a.status for a in rec.of("http_attempt")] == [429, 200]
    response = rec.one("response")
    assert response.attempts == 2
    assert rec.terminal.reason == "completed"
    assert rec.messages[response.assistant_uuids[0]].content[0]["text"] == "after a retry"


def test_a_stream_cut_mid_message_is_sent_again_without_streaming(record: Any) -> None:
    rec = record(
        {
            "responses": [
                {"text": "a long enough answer to be cut " * 4, "faults": [{"cut_after": 5}]}
            ]
        }
    )
    attempts = rec.of("http_attempt")
    assert len(attempts) == 2
    assert "stream cut" in (attempts[0].error or "")
    assert attempts[1].error is None
    assert rec.one("response").attempts == 2
    text = rec.messages[rec.one("response").assistant_uuids[0]].content[0]["text"]
    assert text == "a long enough answer to be cut " * 4
    assert rec.terminal.reason == "completed"


def test_a_stream_cut_every_time_ends_with_model_error(record: Any) -> None:
    rec = record({"responses": [{"text": "never whole", "faults": [{"cut_after": 3}] * 3}]})
    attempts = rec.of("http_attempt")
    assert [a.error.split(":")[0] for a in attempts] == [
        "stream cut off",
        "answer cut off",
        "answer cut off",
    ], "the stream once, then the plain fallback and the SDK's retry of it"
    assert [s.streaming for s in rec.of("http_attempt_start")] == [None, False, False]
    assert rec.terminal.reason == "model_error"
    assert "cut off" in rec.terminal.error


# -- aborted tools ------------------------------------------------------------------------------


def test_reject_without_feedback_aborts_the_turn(record: Any) -> None:
    rec = record(
        {
            "permissions": {"decisions": [{"decision": "reject"}]},
            "responses": [
                {
                    "tool_use": [
                        {"name": "Bash", "input": {"command": "echo one"}},
                        {"name": "Bash", "input": {"command": "echo two"}},
                    ]
                },
                {"text": "never asked"},
            ],
        }
    )
    first, second = rec.results()
    assert first["is_error"] is True and first["content"] == REJECT_MESSAGE
    assert second["is_error"] is True and second["content"] == CANCEL_MESSAGE
    assert rec.of("tool_start") == [], "no tool ran"
    assert rec.terminal.reason == "aborted_tools" and rec.terminal.turn_count == 1
    assert len(rec.of("request")) == 1
    assert rec.of("message")[-1].content == INTERRUPT_MESSAGE_FOR_TOOL_USE


# -- concurrency ----------------------------------------------------------------------------


def test_two_reads_run_in_one_batch_and_keep_the_models_order(
    record: Any, monkeypatch: Any
) -> None:
    second_done = threading.Event()
    real_call = ReadTool.call

    def call(self: ReadTool, tool_input: dict[str, Any], ctx: Any) -> Any:
        if tool_input["file_path"] == "a.txt":
            # Finish only after b.txt has: possible only if the two run at the same time.
            if not second_done.wait(timeout=10):
                raise RuntimeError("b.txt never ran beside a.txt")
            return real_call(self, tool_input, ctx)
        out = real_call(self, tool_input, ctx)
        second_done.set()
        return out

    monkeypatch.setattr(ReadTool, "call", call)
    rec = record(
        {
            "workspace": {"files": {"a.txt": "alpha\n", "b.txt": "beta\n"}},
            "permissions": {"allow": ["Read"]},
            "responses": [
                {
                    "tool_use": [
                        {"name": "Read", "input": {"file_path": "a.txt"}},
                        {"name": "Read", "input": {"file_path": "b.txt"}},
                    ]
                },
                {"text": "both read"},
            ],
        }
    )
    starts = rec.of("tool_start")
    assert [(s.batch, s.concurrent) for s in starts] == [(1, True), (1, True)]
    ids = rec.of("follow_up")[0].tool_use_ids
    assert [w.tool_use_id for w in rec.of("wrapping")] == ids
    assert [b["content"] for b in rec.results()] == [
        "1\talpha\n2\t" + READ_REMINDER,
        "1\tbeta\n2\t" + READ_REMINDER,
    ]
    # Both results reach the next request, in the model's order, in one user message.
    last_user = rec.requests()[1]["messages"][-1]
    assert [b["tool_use_id"] for b in last_user["content"]] == ids


def test_bash_calls_are_not_batched_together(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {
                    "tool_use": [
                        {"name": "Bash", "input": {"command": "echo a > f"}},
                        {"name": "Bash", "input": {"command": "echo b >> f"}},
                    ]
                },
                {"text": "ok"},
            ],
        }
    )
    assert [(s.batch, s.concurrent) for s in rec.of("tool_start")] == [(1, False), (2, False)]


@pytest.mark.parametrize("turns", [1, 3])
def test_every_turn_resends_the_whole_history(record: Any, turns: int) -> None:
    rec = record(
        {"permissions": {"allow": ["Glob"]}, "responses": [*_glob_turns(turns), {"text": "end"}]}
    )
    bodies = rec.requests()
    assert len(bodies) == turns + 1
    for earlier, later in itertools.pairwise(bodies):
        n = len(earlier["messages"])
        # The previous request is a prefix of the next (the user message may grow in place).
        assert later["messages"][: n - 1] == earlier["messages"][: n - 1]
        assert len(later["messages"]) == n + 2
