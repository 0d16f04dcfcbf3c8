"""Issue 34's record shapes, each from a small transcript of our own
(``tests/data/claude-code/make_record_kinds.py``): imported into a trace every command reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from import_helpers import DATA, doctor_errors, import_ours, of_kind, records_of, write_records

from tracer.cli.main import main
from tracer.trace.requests import rebuild_requests
from tracer.trace.schema import validate_trace

EXPORTS = ("md", "mermaid", "otlp-json", "html")


def every_reader_opens(out: Path, tmp_path: Path) -> None:
    """``validate``, ``show``, ``doctor`` and every export exit 0 on ``out``."""
    assert main(["validate", str(out)]) == 0
    assert main(["show", str(out)]) == 0
    assert main(["doctor", str(out)]) == 0
    for fmt in EXPORTS:
        assert main(["export", str(out), "--format", fmt, "-o", str(tmp_path / f"x.{fmt}")]) == 0


def test_a_result_without_content_imports_into_a_trace_every_command_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An MCP tool that returned nothing (2.0.20-2.0.21): no content key, no toolUseResult. The
    # tool_run step's output was None, left out of the line like an unset optional field, and
    # every reader but replay refused the trace ("tool_run event: missing output").
    events, report, out = import_ours("v2.0-mcp-result-without-content.jsonl", tmp_path)
    (run,) = of_kind(events, "tool_run")
    assert run.tool == "mcp__notes__today" and run.output is None
    assert '"output":null' in out.read_text(encoding="utf-8")
    (mapped,) = of_kind(events, "mapping")
    assert "content" not in mapped.block  # the block as it was sent
    assert report.counts["tool results"] == 1
    assert doctor_errors(out) == []
    every_reader_opens(out, tmp_path)


def test_a_folder_with_such_a_session_summarises_it_truthfully(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "-home-dev-notes"
    folder.mkdir()
    shutil.copy(DATA / "v2.0-mcp-result-without-content.jsonl", folder / "s1.jsonl")
    out = tmp_path / "traces"
    assert main(["import", "claude-code", str(folder), "-o", str(out)]) == 0
    (row,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("s1 ")]
    assert row.split()[1:3] == ["2", "1"] and row.endswith("ok → s1.trace.jsonl")
    every_reader_opens(out / "s1.trace.jsonl", tmp_path)


def test_tools_run_after_an_output_limit_error_keep_their_results(tmp_path: Path) -> None:
    # 2.0.21: a <synthetic> API error between the tool calls and their results, after which
    # Claude Code ran the tools anyway. It was read as a failed call: the loop ended there with
    # model_error, both results were dropped, and the doctor saw a request resending the calls
    # without them (2 errors on a session the API answered).
    events, report, out = import_ours("v2.0-output-limit-then-tools.jsonl", tmp_path)
    assert [e.tool_use_id for e in of_kind(events, "tool_run")] == ["toolu_l1", "toolu_l2"]
    assert [e.reason for e in of_kind(events, "terminal")] == ["completed"]
    assert report.counts["model calls"] == 2 and "failed model calls" not in report.counts
    assert report.counts["tool calls run after an API error"] == 2
    (note,) = [e for e in of_kind(events, "import_note") if e.topic == "error_after_tools"]
    assert "output token maximum" in note.data["error"]
    # The second request carries both results and leaves the error notice out.
    second = list(rebuild_requests(events))[1]
    sent = json.dumps(second.body["messages"])
    assert "toolu_l1" in sent and "toolu_l2" in sent and "output token maximum" not in sent
    assert doctor_errors(out) == []
    (counts,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    assert counts.data["not_in_trace"] == 0


def test_a_session_resumed_from_the_text_half_does_not_resend_the_other_half(
    tmp_path: Path,
) -> None:
    # The response's Agent call was never answered and the session was resumed from its text
    # half. The importer took the whole response (every record of its message.id) into the
    # next requests, which the token counts show the real one did not hold, and the doctor
    # reported a call resent without its result.
    events, report, out = import_ours("v2.1-resumed-from-the-text-half.jsonl", tmp_path)
    for request in rebuild_requests(events):
        assert "toolu_h1" not in json.dumps(request.body["messages"])
    assert doctor_errors(out) == []
    first = of_kind(events, "response")[0]
    assert first.usage["output_tokens"] == 60  # the whole response's usage, from its last record
    assert [e.needs_follow_up for e in of_kind(events, "follow_up")] == [False, True, False]
    (label,) = [k for k in report.skipped if "unanswered tool calls" in k]
    assert report.skipped[label] == 1
    (counts,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    assert [m["id"] for m in counts.data["missing"]] == ["toolu_h1"]


def test_the_count_check_says_which_branch_was_retried_and_which_abandoned(
    tmp_path: Path,
) -> None:
    # Both used to read "retried or abandoned response", with nothing on where the calls went.
    events, report, out = import_ours("v2.1-retried-and-abandoned-branches.jsonl", tmp_path)
    assert report.skipped == {
        "records of a retried response (the same request was sent again and answered)": 1,
        "records of an abandoned response (the conversation went on without it)": 4,
    }
    (counts,) = [e for e in of_kind(events, "import_note") if e.topic == "counts"]
    why = {m["id"]: m["why"] for m in counts.data["missing"]}
    assert why["toolu_c2"] == (
        "a retried response (line 4): the same request was answered again at line 5; "
        "its 1 tool call(s) never ran"
    )
    abandoned = (
        "an abandoned response (line 7): the conversation went on from line 6 with the prompt "
        "at line 11; 2 of its 2 tool call(s) ran (result lines 8, 10) and no later request "
        "held them"
    )
    assert {why[t] for t in ("toolu_c4", "toolu_c5")} == {abandoned}
    assert [m["kind"] for m in counts.data["missing"] if m["id"] == "toolu_c4"] == [
        "tool_use",
        "tool_result",
    ]
    assert counts.text.endswith(f"(left out: {why['toolu_c2']}; {abandoned})")
    assert [e.tool_use_id for e in of_kind(events, "tool_run")] == ["toolu_c1", "toolu_c3"]
    assert doctor_errors(out) == []


def _unmended(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    """A transcript with a result whose content is -1, and the importer's mending switched off:
    the trace it writes is one the readers refuse."""
    import tracer.importers.shapes

    monkeypatch.setattr(tracer.importers.shapes, "is_clean", lambda *args: True)
    records = records_of("v2.1-result-before-assistant.jsonl")
    next(r for r in records if r.get("toolUseResult"))["message"]["content"][0]["content"] = -1
    folder.mkdir()
    return write_records(folder / "s1.jsonl", records)


def test_an_import_the_readers_would_refuse_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The count check only counted blocks: it said "nothing missing" of a trace that validate,
    # show, doctor and every export refused. The lines are now checked as the readers check
    # them while they are written.
    path = _unmended(monkeypatch, tmp_path / "p")
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "error: the trace written does not pass validate (2 problem(s), " in err
    said = "line 12: mapping event: block.content must be a string or a list of blocks"
    assert f"first: {said})" in err
    # The same verdict, on the same line, as validate gives of the finished file.
    assert validate_trace(out)[1][0] == f"{out}:12: {said.removeprefix('line 12: ')}"


def test_a_folder_marks_such_a_session_as_an_error_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _unmended(monkeypatch, tmp_path / "-home-dev-app").parent
    assert main(["import", "claude-code", str(folder), "-o", str(tmp_path / "traces")]) == 2
    (row,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("s1 ")]
    assert "error: the trace written does not pass validate" in row and "ok" not in row.split()


def test_an_api_log_given_to_the_transcript_importer_names_the_right_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said only "no user or assistant messages: not a Claude Code transcript".
    pair = {
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "body": {}},
        "response": {"status_code": 200, "body": {"type": "message", "content": []}},
    }
    log = write_records(tmp_path / "claude-trace.jsonl", [pair, pair])
    out = tmp_path / "t.jsonl"
    assert main(["import", "claude-code", str(log), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"tracer: {log}:1: this is an API log (request/response pairs), not a Claude Code "
        f"transcript: run `tracer import api-log {log}`\n"
    )
    assert not out.exists()


def test_an_unanswered_call_of_a_session_that_ended_there_stays_in_its_response(
    tmp_path: Path,
) -> None:
    # The same split response, but nothing came after it except another call's result (the
    # session was killed while the Agent ran): no later response went on without the call, so
    # it is still the response's, asked for and never answered.
    prompt, text_half, agent = records_of("v2.1-resumed-from-the-text-half.jsonl")[:3]
    bash = {
        **agent,
        "uuid": "as-main-bash",
        "parentUuid": text_half["uuid"],
        "message": {
            **agent["message"],
            "content": [{"type": "tool_use", "id": "toolu_h9", "name": "Bash", "input": {}}],
        },
    }
    result = {
        **prompt,
        "uuid": "us-main-result",
        "parentUuid": "as-main-bash",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_h9", "content": "ok"}],
        },
        "toolUseResult": {"stdout": "ok"},
        "sourceToolAssistantUUID": "as-main-bash",
    }
    path = write_records(tmp_path / "s.jsonl", [prompt, text_half, agent, bash, result])
    events, report, _ = import_ours(path, tmp_path)
    (asked,) = of_kind(events, "follow_up")
    assert sorted(asked.tool_use_ids) == ["toolu_h1", "toolu_h9"]
    assert not any("unanswered tool calls" in k for k in report.skipped)
