"""Each fault scenario gives exactly its rule, and the clean recordings give no error.

Every rule has a fault scenario, and each, recorded fresh, yields its rule alone, at the step a
reader should look at, worded in both languages, with a hint. The faults the API refuses end on
its 400; a broken pairing shows the raw 400 and the request Claude Code 2.1.88 patches and sends
(ensureToolResultPairing); the committed fault recordings end as fresh ones do; a max_turns ending
is only a warning; the repeat limit can be set; a result that answers one call twice is a mismatch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from doctor_helpers import FAULTS, FAULTS_DIR

from tracer.agent.api_rules import validate_request
from tracer.cli.show import show_lines
from tracer.doctor import RULES, run_doctor
from tracer.files.paths import RECORDINGS_DIR, SCENARIOS_DIR
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

# The doctor's files share one xdist worker: doctor_helpers' fault_traces records the faults once.
pytestmark = pytest.mark.xdist_group("doctor")
pytest_plugins = ["doctor_helpers"]

#: The step kind each rule points at, so a marker lands where the reader should look.
STAGE_OF = {
    "result-not-returned": "resending",
    "tool-use-id-mismatch": "mapping",
    "malformed-result": "mapping",
    "loop-not-ending": "follow_up",
    "max-turns": "max_turns_check",
    "api-invariants": "resending",
}


def expected_rule(path: Path) -> str:
    stem = path.stem.split("-", 1)[1]
    matches = [rule for rule in RULES if stem == rule or stem.startswith(rule + "-")]
    assert len(matches) == 1, f"{path.name}: its name must start NN-<rule id>"
    return matches[0]


def stage_at(trace: Path, step: int) -> str:
    line = list(show_lines(TraceReader(trace)))[step - 1]
    number, _turn_word, _turn, stage = line.split()[:4]
    assert int(number) == step
    return stage


def test_there_is_a_fault_scenario_for_every_rule() -> None:
    assert {expected_rule(p) for p in FAULTS} == set(RULES)


@pytest.mark.parametrize("path", FAULTS, ids=lambda p: p.stem)
def test_each_fault_yields_exactly_its_rule(path: Path, fault_traces: dict[str, Path]) -> None:
    trace = fault_traces[path.stem]
    findings = run_doctor(TraceReader(trace))
    rule = expected_rule(path)
    assert [f.rule for f in findings] == [rule], [f.message for f in findings]
    finding = findings[0]
    assert finding.severity == RULES[rule]
    assert stage_at(trace, finding.step) == STAGE_OF[rule]
    assert "\n" not in finding.message and finding.message
    assert "\n" not in finding.message_zh and re.search(r"[\u4e00-\u9fff]", finding.message_zh)
    assert finding.hint["zh"] and finding.hint["en"]


def test_the_repeated_call_hint_does_not_blame_a_missing_tool_use(
    fault_traces: dict[str, Path],
) -> None:
    # The model asked for a tool every time: "needsFollowUp must be false with no tool_use
    # block" is the stuck loop's check, not this one's.
    [repeat] = run_doctor(TraceReader(fault_traces["06-loop-not-ending-repeat"]))
    [stuck] = run_doctor(TraceReader(fault_traces["05-loop-not-ending"]))
    assert repeat.rule == stuck.rule == "loop-not-ending"
    assert "no tool_use" not in repeat.hint["en"] and "没有 tool_use" not in repeat.hint["zh"]
    assert "same call" in repeat.hint["en"] and "同一个调用" in repeat.hint["zh"]
    assert repeat.hint != stuck.hint


@pytest.mark.parametrize("path", FAULTS, ids=lambda p: p.stem)
def test_fault_scenarios_say_what_broke(path: Path) -> None:
    from tracer.chapter.scenario import load_scenario

    scenario = load_scenario(path)
    assert scenario.title.get("zh") and scenario.title.get("en")
    assert scenario.notes.get("zh") and scenario.notes.get("en")
    ids = [b["id"] for r in scenario.responses for b in r.blocks if b["type"] == "tool_use"]
    assert all(i.startswith("toolu_01fault_") for i in ids), "fault scenarios name their ids"


@pytest.mark.parametrize("stem", ["08-api-invariants"])
def test_faults_the_api_refuses_end_validly_with_its_400(
    stem: str, fault_traces: dict[str, Path]
) -> None:
    events = list(TraceReader(fault_traces[stem]))
    end = events[-1]
    assert end.kind == "terminal" and end.reason == "model_error"
    last_body = list(rebuild_requests(events))[-1].body
    assert end.error == f"400 invalid_request_error: {validate_request(last_body)}"
    finding = run_doctor(events)[0]
    assert validate_request(last_body) in finding.message


@pytest.mark.parametrize(
    "stem", ["01-result-not-returned", "02-tool-use-id-mismatch", "03-malformed-result"]
)
def test_broken_pairings_show_the_raw_400_and_the_patched_request_claude_code_sends(
    stem: str, fault_traces: dict[str, Path]
) -> None:
    """2.1.88's ensureToolResultPairing: the bare API refuses, Claude Code patches and goes on."""
    from tracer.model.internal_messages import MISSING_RESULT_MESSAGE

    events = list(TraceReader(fault_traces[stem]))
    assert events[-1].reason == "completed"
    requests = list(rebuild_requests(events))
    refused = [e for e in events if e.kind == "http_attempt" and e.status == 400]
    assert [e.request_index for e in refused] == [2]
    raw, patched = requests[1], requests[2]
    assert validate_request(raw.body) is not None
    assert refused[0].error.endswith(validate_request(raw.body))
    assert validate_request(patched.body) is None
    pairing = next(e for e in events if e.kind == "request" and e.request_index == 3).pairing
    assert pairing["unpatched_request"] == 2 and pairing["added"]
    content = patched.body["messages"][2]["content"]
    synthetic = [b for b in content if b.get("content") == MISSING_RESULT_MESSAGE]
    assert [b["tool_use_id"] for b in synthetic] == pairing["added"]
    assert content[: len(synthetic)] == synthetic  # first in the user message (messages.ts)
    assert all("tool_use_id" in b for b in content if b.get("type") == "tool_result")
    assert all(b["is_error"] is True for b in synthetic)
    [finding] = run_doctor(events)
    assert "ensureToolResultPairing" in finding.message and "request 3" in finding.message
    assert "ensureToolResultPairing" in finding.message_zh and "第3次请求" in finding.message_zh


def test_consecutive_assistant_messages_are_not_an_api_error(record: Callable[..., Any]) -> None:
    # force_follow_up sends the history again after the model answered: two assistant messages
    # in a row, which the API combines into one turn. Only the stuck loop is a finding.
    rec = record(FAULTS_DIR / "05-loop-not-ending.yaml", validator=validate_request, max_turns=5)
    roles = [m["role"] for m in rec.requests()[-1]["messages"]]
    assert roles[-2:] == ["assistant", "assistant"]
    assert rec.terminal.reason == "max_turns"
    assert [f.rule for f in run_doctor(rec.reader)] == ["loop-not-ending"]


def test_the_quiet_faults_are_accepted_by_the_api(fault_traces: dict[str, Path]) -> None:
    for stem in ("04-malformed-result-error-flag", "06-loop-not-ending-repeat"):
        assert list(TraceReader(fault_traces[stem]))[-1].reason == "completed"


@pytest.mark.parametrize(
    "path", sorted((RECORDINGS_DIR / "faults").glob("*.trace.jsonl")), ids=lambda p: p.stem
)
def test_committed_fault_recordings_yield_their_rule(
    path: Path, fault_traces: dict[str, Path]
) -> None:
    source = FAULTS_DIR / (path.name.removesuffix(".trace.jsonl") + ".yaml")
    assert source.exists(), f"{path.name} has no scenario"
    assert [f.rule for f in run_doctor(TraceReader(path))] == [expected_rule(source)]
    # Recorded with the API's rules as validator: it ends as a fresh recording ends.
    committed_end = list(TraceReader(path))[-1]
    fresh_end = list(TraceReader(fault_traces[source.stem]))[-1]
    assert (committed_end.reason, committed_end.error) == (fresh_end.reason, fresh_end.error)


@pytest.mark.parametrize("path", sorted(RECORDINGS_DIR.glob("*.trace.jsonl")), ids=lambda p: p.stem)
def test_clean_recordings_yield_no_error(path: Path) -> None:
    findings = run_doctor(TraceReader(path))
    assert [f for f in findings if f.severity == "error"] == [], [f.message for f in findings]
    if "max-turns" in path.stem:
        assert [f.rule for f in findings] == ["max-turns"]


def test_a_max_turns_ending_is_only_a_warning(record: Callable[..., Any]) -> None:
    # Turn 2's result is appended but never sent: that is the warning's story, not an error.
    rec = record(SCENARIOS_DIR / "01-main-walk.yaml", max_turns=2)
    findings = run_doctor(rec.reader)
    assert [(f.rule, f.severity) for f in findings] == [("max-turns", "warning")]
    assert "turn 3 would exceed the limit of 2" in findings[0].message
    assert "1 tool call(s) were never sent" in findings[0].message


def test_events_and_reader_give_the_same_findings(fault_traces: dict[str, Path]) -> None:
    trace = fault_traces["01-result-not-returned"]
    assert run_doctor(list(TraceReader(trace))) == run_doctor(TraceReader(trace))


def test_the_repeat_limit_is_configurable(fault_traces: dict[str, Path]) -> None:
    trace = TraceReader(fault_traces["06-loop-not-ending-repeat"])
    assert run_doctor(trace, repeat_limit=4) == []
    assert [f.rule for f in run_doctor(trace, repeat_limit=2)] == ["loop-not-ending"]
    with pytest.raises(ValueError):
        run_doctor(trace, repeat_limit=1)


def test_a_result_answering_one_call_twice_is_a_mismatch(record: Callable[..., Any]) -> None:
    rec = record(
        {
            "faults": {"rewrite_tool_use_id": {"toolu_01two": "toolu_01one"}},
            "workspace": {"files": {"a.txt": "alpha\n"}},
            "permissions": {"allow": ["Read"]},
            "responses": [
                {
                    "tool_use": [
                        {"id": "toolu_01one", "name": "Read", "input": {"file_path": "a.txt"}},
                        {
                            "id": "toolu_01two",
                            "name": "Read",
                            "input": {"file_path": "a.txt", "limit": 1},
                        },
                    ]
                },
                {"text": "done"},
            ],
        },
        validator=validate_request,
    )
    findings = run_doctor(rec.reader)
    assert [f.rule for f in findings] == ["tool-use-id-mismatch"]
    # ensureToolResultPairing stripped the duplicate before sending, so the evidence is the
    # result message that carried the wrong id.
    assert "a tool_result answers toolu_01one, but it is the result of toolu_01two" in (
        findings[0].message
    )
    assert "ensureToolResultPairing stripped it" in findings[0].message
