"""The doctor: each fault gives exactly its rule, clean sessions give no error, the CLI's contract.

Fault scenarios are recorded fresh (through the real SDK and the scripted transport, with the
API's request rules as validator), so these tests fail if a rule, a fault or the validator drifts.
The expected rule of ``chapters/ch12/faults/NN-<rule>[-variant].yaml`` is in its file name.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tracer.agent.api_rules import validate_request
from tracer.cli.show import show_lines
from tracer.doctor import FINDINGS_JSON_SCHEMA, RULES, run_doctor
from tracer.doctor.facts import TraceFacts
from tracer.doctor.malformed import block_problems
from tracer.files.paths import CHAPTERS_DIR, MAIN_RECORDING, RECORDINGS_DIR, ROOT, SCENARIOS_DIR
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

# One xdist worker for the file: its faults are recorded once, by the module fixture below.
pytestmark = pytest.mark.xdist_group("doctor")

FAULTS_DIR = CHAPTERS_DIR / "ch12" / "faults"
FAULTS = sorted(FAULTS_DIR.glob("*.yaml"))
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


def record_fault(path: Path, out_dir: Path, **kwargs: Any) -> Path:
    from tracer.chapter.scenario import load_scenario
    from tracer.record.run import record_scenario

    output = out_dir / f"{path.stem}.trace.jsonl"
    record_scenario(load_scenario(path), output, validator=validate_request, **kwargs)
    return output


@pytest.fixture(scope="module")
def fault_traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("faults")
    return {path.stem: record_fault(path, out) for path in FAULTS}


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


def _rewrite(trace: Path, out: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    lines = trace.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    for event in events[1:]:
        change(event)
    out.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8"
    )
    return out


def test_text_before_the_results_breaks_the_apis_rule(tmp_path: Path) -> None:
    blocks = {e.seq: e.block for e in TraceReader(MAIN_RECORDING) if e.kind == "mapping"}

    def text_first(event: dict[str, Any]) -> None:
        if event["kind"] == "message" and event.get("origin") == "tool_result":
            # The file stores the result block once, in its mapping step; write it out here so
            # the text can go in front of it.
            whole = [blocks[event.pop("block_seq")], *(event.get("content") or [])]
            event["content"] = [{"type": "text", "text": "Here:"}, *whole]
        if event["kind"] == "request":  # the parts shift by one inside the edited messages
            for ref in event["tail"]:
                if ref["role"] == "user" and len(ref["parts"]) == 1 and ref["parts"][0][1] == 0:
                    ref["parts"] = [[ref["parts"][0][0], 0], [ref["parts"][0][0], 1]]

    trace = _rewrite(MAIN_RECORDING, tmp_path / "edited.trace.jsonl", text_first)
    findings = run_doctor(TraceReader(trace))
    # The blocks are well formed; their order breaks the API's rule (results first).
    assert {f.rule for f in findings} == {"api-invariants"}
    assert any(
        "`tool_result` block(s) at the beginning of this message" in f.message for f in findings
    )


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        (
            {"type": "tool_result", "tool_use_id": "t", "content": "", "is_error": True},
            "is_error is set but the content carries no error text",
        ),
        (
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": "<tool_use_error>no</tool_use_error>",
            },
            "the content is an error (<tool_use_error>) but is_error is not set",
        ),
        (
            {"type": "tool_result", "tool_use_id": "t", "content": {"x": 1}},
            "its content is a dict, not a string or a list of blocks",
        ),
        ({"type": "tool_result", "tool_use_id": 7, "content": "x"}, "its tool_use_id is 7"),
        (
            {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": "no"},
            "is_error is 'no', not true or false",
        ),
        ({"type": "text", "text": "x"}, "its type is 'text', not 'tool_result'"),
    ],
)
def test_block_problems(block: dict[str, Any], problem: str) -> None:
    assert any(p.startswith(problem) for p in block_problems(block)), block_problems(block)


def test_a_good_result_has_no_problems() -> None:
    assert (
        block_problems(
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "is_error": True,
                "content": "Exit code 2\nboom",
            }
        )
        == []
    )
    assert (
        block_problems(
            {"type": "tool_result", "tool_use_id": "t", "content": "Exit code is printed below"}
        )
        == []
    )


def test_requests_are_rebuilt_as_sent() -> None:
    events = list(TraceReader(MAIN_RECORDING))
    facts = TraceFacts.build(events)
    assert [list(r.wire) for r in facts.requests] == [
        r.body["messages"] for r in rebuild_requests(events)
    ]


def test_steps_are_numbered_as_show_numbers_them() -> None:
    facts = TraceFacts.build(TraceReader(MAIN_RECORDING))
    shown = list(show_lines(TraceReader(MAIN_RECORDING)))
    assert max(facts.steps) == len(shown)


def test_hints_come_from_the_guide() -> None:
    from tracer.chapter.guide import load_guide
    from tracer.doctor.hints import FALLBACK, hint_for

    guide = load_guide()
    for rule in RULES:
        entry = guide.rule(rule)
        expected = (
            dict(FALLBACK[rule])
            if entry is None
            else {"zh": entry.check["zh"], "en": entry.check["en"]}
        )
        assert hint_for(rule) == expected
        assert expected["zh"] and expected["en"]


# -- the command line ----------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracer", "doctor", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
        env={**os.environ, "TRACER_LANG": "en"},
    )


def test_json_output_has_the_published_shape(fault_traces: dict[str, Path]) -> None:
    proc = run_cli(str(fault_traces["02-tool-use-id-mismatch"]), "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    jsonschema.validate(data, FINDINGS_JSON_SCHEMA)
    assert [d["rule"] for d in data] == ["tool-use-id-mismatch"]
    assert set(data[0]) == {"rule", "severity", "step", "turn", "message", "message_zh", "hint"}
    assert data[0]["message_zh"].startswith("第2次请求") and "tool_result" in data[0]["message_zh"]


def test_text_output_and_exit_codes(fault_traces: dict[str, Path]) -> None:
    clean = run_cli(str(MAIN_RECORDING))
    assert clean.returncode == 0 and clean.stdout.strip().endswith("no findings")
    warned = run_cli(str(fault_traces["07-max-turns"]), "--lang", "zh")
    assert warned.returncode == 0
    assert "max-turns" in warned.stdout and "检查：" in warned.stdout
    # Chinese throughout: severity, position, message and summary.
    assert "警告     max-turns" in warned.stdout and "会话因 max_turns 停止" in warned.stdout
    assert "warning" not in warned.stdout and "turn " not in warned.stdout
    assert warned.stdout.strip().endswith("0个错误，1个警告")
    assert run_cli(str(fault_traces["07-max-turns"]), "--strict").returncode == 1
    broken = run_cli(str(fault_traces["05-loop-not-ending"]))
    assert broken.returncode == 1
    assert "1 error, 0 warnings" in broken.stdout
    repeat = fault_traces["06-loop-not-ending-repeat"]
    assert run_cli(str(repeat), "--repeat", "4").returncode == 0
    assert run_cli(str(repeat), "--repeat", "1").returncode == 2


def _bad_inputs(tmp_path: Path) -> list[Path]:
    not_json = tmp_path / "notes.txt"
    not_json.write_text("hello\n", encoding="utf-8")
    lines = MAIN_RECORDING.read_text(encoding="utf-8").splitlines()
    torn_middle = tmp_path / "broken.trace.jsonl"
    torn_middle.write_text(
        "\n".join([*lines[:5], "{not json", *lines[5:]]) + "\n", encoding="utf-8"
    )
    dangling = _rewrite(
        MAIN_RECORDING,
        tmp_path / "dangling.trace.jsonl",
        lambda e: e.get("kind") == "message" and e.update(uuid="x" + e["uuid"]),
    )
    return [tmp_path / "missing.trace.jsonl", tmp_path, not_json, torn_middle, dangling]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for path in _bad_inputs(tmp_path):
        proc = run_cli(str(path))
        assert proc.returncode == 2, (path, proc.stdout, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stderr.startswith("tracer: ")


def test_the_doctor_imports_neither_anthropic_nor_textual() -> None:
    code = (
        "import sys, tracer.doctor, tracer.doctor.command; "
        "print(any(m.split('.')[0] in ('anthropic', 'textual') for m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == "False"


#: Real Claude Code transcripts and API logs, kept beside the repository (absent: no cases).
FIXTURES = ROOT.parent / "shared" / "fixtures"
IMPORTS = [
    *(("claude-code", p) for p in sorted((FIXTURES / "claude-code-transcripts").glob("*.jsonl"))),
    *(("api-log", p) for p in sorted((FIXTURES / "api-logs").glob("*.jsonl"))),
]


@pytest.mark.parametrize(("kind", "source"), IMPORTS, ids=lambda v: getattr(v, "stem", v))
def test_the_doctor_reads_imported_traces(kind: str, source: Path, tmp_path: Path) -> None:
    trace = tmp_path / "imported.trace.jsonl"
    imported = subprocess.run(
        [sys.executable, "-m", "tracer", "import", kind, str(source), "-o", str(trace)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    if imported.returncode != 0:
        pytest.skip(f"import failed: {imported.stderr.strip()[-200:]}")
    proc = run_cli(str(trace), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    jsonschema.validate(json.loads(proc.stdout), FINDINGS_JSON_SCHEMA)


def test_the_help_lists_every_rule() -> None:
    from tracer.doctor.command import RULE_IDS

    assert tuple(RULES) == RULE_IDS


def test_a_result_needs_only_type_and_tool_use_id() -> None:
    """ToolResultBlockParam requires type and tool_use_id; content and is_error are optional."""
    from typing import Required, get_origin, get_type_hints

    from anthropic.types import ToolResultBlockParam

    hints = get_type_hints(ToolResultBlockParam, include_extras=True)
    required = {name for name, hint in hints.items() if get_origin(hint) is Required}
    assert required == {"type", "tool_use_id"}
    assert {"content", "is_error"} <= set(hints) - required
    assert block_problems({"type": "tool_result", "tool_use_id": "t"}) == []
    assert block_problems({"type": "tool_result", "content": "x"}) == ["it has no tool_use_id"]


def test_the_report_names_a_finding_before_the_first_turn_set_up() -> None:
    from tracer.doctor.command import report_lines
    from tracer.doctor.finding import Finding

    early = Finding(rule="malformed-result", severity="error", step=2, turn=0, message="m")
    later = Finding(rule="max-turns", severity="warning", step=9, turn=3, message="m")
    zh, en = report_lines([early, later], "zh"), report_lines([early, later], "en")
    assert "第2步，准备" in zh[0] and zh[0].startswith("错误") and "第0轮" not in "".join(zh)
    assert any("第9步，第3轮" in line and line.startswith("警告") for line in zh)
    assert en[0].endswith("step 2, set-up") and any(x.endswith("step 9, turn 3") for x in en)


def test_the_chinese_report_lines_its_columns_up_as_the_english_one_does() -> None:
    from tracer.doctor.command import report_lines
    from tracer.files.paths import resolve_trace
    from tracer.text.cells import cells
    from tracer.view.diagnose import diagnose

    findings = list(diagnose(resolve_trace("faults/03-malformed-result")).findings)
    for lang in ("zh", "en"):
        first, message = report_lines(findings, lang)[:2]
        rule = first.index(findings[0].rule)
        assert cells(first[:rule]) == 9 == len(message) - len(message.lstrip(" ")), lang
