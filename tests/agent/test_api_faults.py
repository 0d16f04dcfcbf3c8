"""The API fails cleanly: timeouts, stalls, cut streams, error events and garbage, offline.

Each case is a scripted fault played through the real SDK and the whole loop. Every case must
leave a valid trace that ends with a ``terminal`` event, show each HTTP attempt, and never run a
tool on half its input. A stream that broke after it began is answered as Claude Code 2.1.88
answers it: the same request once more, without streaming (the attempt's ``streaming: false``).

Scripted silence passes on the scripted server's own clock
(:mod:`tracer.agent.script_clock`), so the timeouts here are judged the same on an idle machine
and on one busy with other work: nothing in this file waits on the wall clock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

pytestmark = pytest.mark.usefixtures("quick_sdk_retries")

FAST = 0.2
BASH_INPUT = {"command": "echo one two three four five six seven eight"}
BASH = {"name": "Bash", "input": BASH_INPUT}


def _streams(rec: Any) -> list[bool]:
    """Whether each attempt asked for a stream, in order."""
    return [e.streaming is not False for e in rec.of("http_attempt_start")]


def _attempts(rec: Any) -> list[tuple[str, int, str | None]]:
    """The attempt records in trace order: (kind, attempt number, error)."""
    return [
        (e.kind, e.attempt, getattr(e, "error", None))
        for e in rec.events
        if e.kind in ("http_attempt_start", "http_attempt")
    ]


def _assert_clean_trace(rec: Any) -> None:
    assert rec.events[-1].kind == "terminal"
    count, problems, _ = validate_trace(rec.path)
    assert problems == [] and count == len(rec.events)


# -- a server that never answers -----------------------------------------------------------------


def test_a_server_that_never_answers_ends_in_model_error_after_the_budget(record: Any) -> None:
    rec = record({"responses": [{"text": "never", "faults": [{"hang": 0}] * 5}]}, timeout=FAST)
    starts = rec.of("http_attempt_start")
    ends = rec.of("http_attempt")
    assert [s.attempt for s in starts] == [1, 2, 3], "three attempts in all, then stop"
    assert all(s.timeout == FAST for s in starts)
    assert [e.error for e in ends] == ["timed out: nothing received for 0.2 s"] * 3
    assert all(e.status is None for e in ends)
    assert rec.terminal.reason == "model_error"
    assert rec.terminal.error == "timed out: nothing received for 0.2 s (gave up after 3 attempts)"
    assert rec.of("response") == []
    _assert_clean_trace(rec)


def test_each_attempt_starts_in_the_trace_before_it_ends(record: Any) -> None:
    rec = record({"responses": [{"text": "second time", "faults": [{"hang": 0}]}]}, timeout=FAST)
    assert _attempts(rec) == [
        ("http_attempt_start", 1, None),
        ("http_attempt", 1, "timed out: nothing received for 0.2 s"),
        ("http_attempt_start", 2, None),
        ("http_attempt", 2, None),
    ]
    kinds = [e.kind for e in rec.events]
    assert kinds.index("request") < kinds.index("http_attempt_start"), "what is sent comes first"
    assert rec.one("response").attempts == 2
    assert rec.terminal.reason == "completed"


def test_an_attempt_in_flight_is_already_on_disk(record: Any, tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def look(event: Any) -> None:
        if event.kind == "http_attempt_start":
            # Read the file as another process would, while the attempt is still running.
            trace = next(tmp_path.glob("run-*.trace.jsonl"))
            seen.append([e.kind for e in TraceReader(trace)])

    record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=FAST, also=[look])
    assert len(seen) == 2
    assert seen[0][-2:] == ["request", "http_attempt_start"]
    assert seen[1][-2:] == ["http_attempt", "http_attempt_start"]
    assert all("response" not in kinds and "terminal" not in kinds for kinds in seen)


def test_a_stream_that_goes_silent_midway_falls_back_to_a_plain_request(record: Any) -> None:
    rec = record({"responses": [{"text": "whole at last", "faults": [{"hang": 4}]}]}, timeout=FAST)
    assert _attempts(rec)[1] == ("http_attempt", 1, "stream stalled: nothing received for 0.2 s")
    assert _streams(rec) == [True, False], "the second try is the non-streaming fallback"
    response = rec.one("response")
    assert response.attempts == 2
    assert rec.messages[response.assistant_uuids[0]].content[0]["text"] == "whole at last"


def test_a_stream_cut_midway_falls_back_and_the_request_logged_is_the_streamed_one(
    record: Any,
) -> None:
    rec = record({"responses": [{"text": "whole", "faults": [{"cut_after": 6}]}]})
    assert rec.of("http_attempt")[0].error.startswith("stream cut off: RemoteProtocolError")
    assert _streams(rec) == [True, False]
    [body] = rec.requests()
    assert body["stream"] is True, "the request step shows what went out first"
    assert rec.terminal.reason == "completed"


# -- streams that only ping ----------------------------------------------------------------------


def test_a_stream_of_nothing_but_pings_is_cut_and_falls_back(record: Any) -> None:
    rec = record(
        {"responses": [{"text": "after the pings", "faults": [{"pings_forever": 2}]}]},
        timeout=FAST,
    )
    ends = rec.of("http_attempt")
    assert ends[0].status == 200 and ends[0].error == "stream stalled: only pings for 0.2 s"
    assert ends[1].error is None
    assert _streams(rec) == [True, False]
    assert rec.terminal.reason == "completed"
    text = rec.messages[rec.one("response").assistant_uuids[0]].content[0]["text"]
    assert text == "after the pings"


def test_the_stall_is_judged_on_the_script_s_clock_however_long_the_limit(record: Any) -> None:
    # An hour of pings: on the wall clock this test would never end.
    rec = record({"responses": [{"text": "later", "faults": [{"pings_forever": 2}]}]}, timeout=3600)
    assert rec.of("http_attempt")[0].error == "stream stalled: only pings for 3600 s"
    assert rec.terminal.reason == "completed"


def test_pings_and_then_silence_every_time_end_in_model_error(record: Any) -> None:
    rec = record(
        {"responses": [{"text": "never", "faults": [{"pings_forever": 0}] * 3}]}, timeout=FAST
    )
    assert rec.terminal.reason == "model_error"
    # The plain request has no pings to send: the fallback meets silence, and the SDK's retry.
    assert [e.error for e in rec.of("http_attempt")] == [
        "stream stalled: only pings for 0.2 s",
        "timed out: nothing received for 0.2 s",
        "timed out: nothing received for 0.2 s",
    ]
    assert _streams(rec) == [True, False, False]
    assert rec.terminal.error == "timed out: nothing received for 0.2 s (gave up after 3 attempts)"
    _assert_clean_trace(rec)


# -- streams that end without message_stop -------------------------------------------------------


def test_a_stream_that_stops_inside_a_tool_use_is_never_run(record: Any) -> None:
    # message_start, ping, content_block_start and two input_json_delta chunks: mid tool_use.
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [{"tool_use": [BASH], "faults": [{"no_message_stop": 5}]}, {"text": "ok"}],
        }
    )
    first = rec.of("http_attempt")[0]
    assert first.error == "stream cut off: it ended without message_stop"
    assert len(rec.of("tool_start")) == 1, "the tool ran once, on the whole answer"
    use = rec.messages[rec.of("response")[0].assistant_uuids[0]].content[0]
    assert use["input"] == BASH_INPUT
    assert rec.of("tool_run")[0].output["stdout"].strip() == BASH_INPUT["command"][5:]
    assert rec.terminal.reason == "completed"


def test_a_stream_that_is_never_whole_runs_no_tool(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [{"tool_use": [BASH], "faults": [{"no_message_stop": 7}] * 3}],
        }
    )
    assert rec.of("tool_start") == [] and rec.of("response") == []
    assert rec.terminal.reason == "model_error"
    assert rec.of("http_attempt")[0].error == "stream cut off: it ended without message_stop"
    assert rec.terminal.error == (
        "answer cut off: RemoteProtocolError: peer closed connection without sending complete "
        "message (gave up after 3 attempts)"
    )
    _assert_clean_trace(rec)


# -- error events inside a 200 stream ------------------------------------------------------------


def test_an_overloaded_error_event_falls_back_to_a_plain_request(record: Any) -> None:
    rec = record(
        {"responses": [{"text": "fine now", "faults": [{"error_event": "overloaded_error"}]}]}
    )
    first, second = rec.of("http_attempt")
    assert first.status == 200
    assert first.error == "overloaded_error in the stream: Overloaded"
    assert second.error is None
    assert _streams(rec) == [True, False]
    assert rec.one("response").attempts == 2
    assert rec.terminal.reason == "completed"


def test_overloaded_every_time_ends_in_model_error(record: Any) -> None:
    rec = record(
        {"responses": [{"text": "never", "faults": [{"error_event": "overloaded_error"}] * 3}]}
    )
    # The plain request meets the same overload as an HTTP 529, which the SDK retries once.
    assert [(e.status, e.error) for e in rec.of("http_attempt")] == [
        (200, "overloaded_error in the stream: Overloaded"),
        (529, "HTTP 529"),
        (529, "529 overloaded_error: Overloaded"),
    ]
    assert rec.terminal.error == "529 overloaded_error: Overloaded (gave up after 3 attempts)"


def test_any_error_event_falls_back_as_in_claude_code(record: Any) -> None:
    # 2.1.88 catches every error thrown while it reads a stream (a user's Esc aside) and falls
    # back; it does not sort error events into retried and final ones.
    rec = record(
        {"responses": [{"text": "plain", "faults": [{"error_event": "invalid_request_error"}]}]}
    )
    assert rec.of("http_attempt")[0].error == (
        "invalid_request_error in the stream: scripted invalid_request_error"
    )
    assert _streams(rec) == [True, False]
    assert rec.terminal.reason == "completed"


# -- garbage -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("json", "malformed event stream: an event that is not JSON (Unterminated string"),
        ("utf8", "malformed event stream: not UTF-8 ('utf-8' codec can't decode byte 0xff"),
        ("html", "malformed answer: HTTP 200 with content-type text/html, not an event stream"),
    ],
)
def test_a_malformed_stream_falls_back_and_says_what_broke(
    record: Any, how: str, expected: str
) -> None:
    rec = record({"responses": [{"text": "plain", "faults": [{"malformed": how}]}]})
    [first, _] = rec.of("http_attempt")
    assert first.error.startswith(expected) and "\n" not in first.error
    assert _streams(rec) == [True, False]
    assert rec.terminal.reason == "completed"
    _assert_clean_trace(rec)


@pytest.mark.parametrize("how", ["json", "utf8", "html"])
def test_garbage_every_time_is_one_line_of_model_error(record: Any, how: str) -> None:
    rec = record({"responses": [{"text": "never", "faults": [{"malformed": how}] * 3}]})
    assert rec.terminal.reason == "model_error"
    assert rec.terminal.error.startswith("malformed answer: ")
    assert "\n" not in rec.terminal.error
    assert _streams(rec) == [True, False], "garbage in the plain answer is not retried"
    _assert_clean_trace(rec)


def test_record_prints_one_line_for_garbage(
    tracer_here: Any, write_scenario: Any, tmp_path: Path
) -> None:
    scenario = write_scenario({"responses": [{"text": "x", "faults": [{"malformed": "utf8"}] * 3}]})
    out = tmp_path / "t.jsonl"
    proc = tracer_here("record", "--scenario", str(scenario), "-o", str(out), "--timeout", "5")
    assert "Traceback" not in proc.stderr
    assert [e.timeout for e in TraceReader(out) if e.kind == "http_attempt_start"] == [5.0, 5.0]
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"wrote {out} (ended model_error at turn 1: malformed answer: ")


# -- the SDK's versions ----------------------------------------------------------------------------


@pytest.fixture(params=["as installed", "unwrapped"])
def sdk_read_errors(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The SDK as installed, and the SDK as 2.16 and older were: a failed read of a stream's
    body reaches the caller as the ``httpx2`` error itself, not wrapped in
    ``APIConnectionError`` as 2.17 wraps it."""
    if request.param == "unwrapped":
        import anthropic._response as response_module
        import anthropic._streaming as streaming_module

        def unwrapped(response: Any, client: Any) -> Any:
            return response.iter_bytes()

        for module in (streaming_module, response_module):
            if hasattr(module, "iter_response_bytes"):
                monkeypatch.setattr(module, "iter_response_bytes", unwrapped)
    return str(request.param)


@pytest.mark.parametrize("fault", [{"cut_after": 6}, {"hang": 4}, {"pings_forever": 3}])
def test_a_broken_stream_is_survived_however_the_sdk_wraps_the_failure(
    record: Any, sdk_read_errors: str, fault: dict[str, int]
) -> None:
    rec = record({"responses": [{"text": "survived", "faults": [fault]}]}, timeout=FAST)
    assert _streams(rec) == [True, False]
    assert rec.of("http_attempt")[0].error.startswith("stream ")
    assert rec.terminal.reason == "completed"
    text = rec.messages[rec.one("response").assistant_uuids[0]].content[0]["text"]
    assert text == "survived"


# -- scenario syntax -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("{hang: -1}", "hang takes a number of events (0: no answer at all), not -1"),
        ("{malformed: xml}", "malformed takes json, utf8 or html, not 'xml'"),
        ("{pings_forever: yes}", "pings_forever takes a number of events, not True"),
        ("{status: 200}", "status takes an HTTP status code (400 to 599), not 200"),
        ("{error_event: [a]}", "error_event takes an error type"),
        ("{hang: 0, cut_after: 1}", "each fault is one of {status: …}"),
        ("{stall: 3}", "unknown key 'stall'"),
    ],
)
def test_a_bad_fault_is_one_line(fault: str, message: str, tracer_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        f"name: x\nprompt: go\nresponses:\n  - text: hi\n    faults: [{fault}]\n", encoding="utf-8"
    )
    proc = tracer_cli("record", "--scenario", str(path), "-o", str(tmp_path / "t.jsonl"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"tracer: {path}:5: ")
    assert message in line


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_timeout_must_be_a_sane_number(value: str, tracer_cli: Any, tmp_path: Path) -> None:
    proc = tracer_cli("record", "--prompt", "x", "--timeout", value)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--timeout" in proc.stderr


# -- what the readers make of it -----------------------------------------------------------------


def test_show_lists_every_attempt_under_its_request(record: Any, tmp_path: Path) -> None:
    from tracer.cli.show import show_lines

    rec = record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=FAST)
    lines = list(show_lines(rec.reader))
    at = next(i for i, line in enumerate(lines) if " resending " in line)
    assert lines[at + 1 : at + 3] == [
        " " * 32 + "attempt 1: timed out: nothing received for 0.2 s",
        " " * 32 + "attempt 2: HTTP 200",
    ]
    assert " response " in lines[at + 3]

    # The same trace, stopped while its first attempt was in flight.
    text = rec.path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(text) if '"http_attempt_start"' in line)
    cut = tmp_path / "cut.trace.jsonl"
    cut.write_text("".join(text[: first + 1]), encoding="utf-8")
    lines = list(show_lines(TraceReader(cut)))
    assert " resending " in lines[-2]
    assert lines[-1] == " " * 32 + "attempt 1: in flight when the trace stops (timeout 0.2 s)"


def test_show_marks_the_attempt_sent_without_streaming(record: Any) -> None:
    from tracer.cli.show import show_lines

    rec = record({"responses": [{"text": "hi", "faults": [{"cut_after": 4}]}]})
    lines = list(show_lines(rec.reader))
    at = next(i for i, line in enumerate(lines) if " resending " in line)
    assert lines[at + 1].lstrip().startswith("attempt 1: stream cut off: ")
    assert lines[at + 2] == " " * 32 + "attempt 2 (without streaming): HTTP 200"


def test_the_doctor_reads_a_trace_full_of_attempts(record: Any, tracer_cli: Any) -> None:
    rec = record(
        {"responses": [{"text": "hi", "faults": [{"hang": 0}, {"error_event": "api_error"}]}]},
        timeout=FAST,
    )
    proc = tracer_cli("doctor", str(rec.path))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_the_readme_shows_every_fault_kind(write_scenario: Any) -> None:
    from tracer.agent.scripted_faults import FAULT_KINDS
    from tracer.chapter.scenario import load_scenario
    from tracer.files.paths import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## When the API fails", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    scenario = load_scenario(write_scenario(f"name: doc\nprompt: go\n{example}"))
    kinds = [next(iter(f)) for f in scenario.responses[0].faults]
    assert sorted(kinds) == sorted(FAULT_KINDS)


def test_a_reader_that_does_not_know_attempt_starts_skips_them(
    record: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracer.cli.show import show_lines
    from tracer.trace import events

    rec = record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=FAST)
    known = list(show_lines(TraceReader(rec.path)))
    monkeypatch.delitem(events.KINDS, "http_attempt_start")  # as a reader from before issue 13
    old = TraceReader(rec.path)
    skipped = [e for e in old if e.kind == "http_attempt_start"]
    assert len(skipped) == 2 and all(type(e).__name__ == "UnknownEvent" for e in skipped)
    assert list(show_lines(old)) == known
