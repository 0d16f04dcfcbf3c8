"""Wire against transcript on a real pair: the real Claude Code 2.1.88 plays a bundled scenario
(``tracer record --claude-code``), and the requests ``tracer import claude-code`` rebuilds from
the transcript it kept must be the requests it sent, apart from what a transcript cannot know
(the system prompt, the tools list, the other parameters, the reminders, the markers). These
tests need ``claude`` (see :mod:`claude_helpers`); the default run plays scenario 07 (a thinking
block, Read's reminder, an Edit), the slow one every bundled scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_helpers import real_claude
from run_helpers import run_tracer

from tracer.claude_code.session import transcript_path
from tracer.doctor.against import compare_requests
from tracer.doctor.against_command import compare_files, rebuilt_requests
from tracer.files.paths import SCENARIOS_DIR

pytestmark = pytest.mark.xdist_group("claude-code-against")

SCENARIOS = sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml"))
#: What every request of Claude Code 2.1.88 carries that its transcript does not.
UNKNOWABLE = {"system", "tools", "params", "reminders", "cache_control"}


def _record(name: str, folder: Path) -> Path:
    trace = folder / f"{name}.trace.jsonl"
    done = run_tracer(
        "record", "--claude-code", "--scenario", name, "-o", str(trace),
        # What is compared is the transcript against the wire, not the walls around claude
        # (test_record_claude_code.py plays it in bwrap): no sandbox keeps this test to its point.
        env={"TRACER_CLAUDE": str(real_claude()), "TRACER_SANDBOX": "none"},
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return trace


def _agrees(trace: Path) -> None:
    found = compare_files(transcript_path(trace), trace)
    assert [d.message for d in found.differences] == []
    assert found.rebuilt_requests == found.wire_requests > 0
    assert {u.what for u in found.unknowable} == UNKNOWABLE


@pytest.fixture(scope="module")
def edit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record("07-edit", tmp_path_factory.mktemp("against"))


def test_the_transcripts_rebuild_is_what_was_sent(edit: Path) -> None:
    _agrees(edit)


def test_the_doctor_says_so_and_names_what_it_could_not_compare(edit: Path) -> None:
    transcript = transcript_path(edit)
    done = run_tracer("doctor", str(transcript), "--against", str(edit), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["differences"] == []
    counted = {u["what"]: u["count"] for u in report["unknowable"]}
    requests = report["wire_requests"]
    assert counted["system"] == counted["tools"] == requests == 4
    # Read's note on the file it read rides in a result: counted with the injected ones.
    assert counted["reminders"] > requests
    done = run_tracer("doctor", str(transcript), "--against", str(edit), "--lang", "zh")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == f"{transcript}：与发出的请求一致"


def test_a_transcript_damaged_after_the_fact_is_caught(edit: Path, tmp_path: Path) -> None:
    """The real pair, with one result of the transcript changed: exactly that is found."""
    records = [json.loads(x) for x in transcript_path(edit).read_text().splitlines() if x]
    for record in records:
        content = record.get("message", {}).get("content") if record.get("type") == "user" else None
        blocks = (
            [b for b in content if b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        if blocks:
            blocks[0]["content"] = "changed"
            break
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    found = compare_requests(rebuilt_requests(damaged)[0], rebuilt_requests(edit)[0])
    assert found.differences
    assert {d.kind for d in found.differences} == {"block-differs"}
    # The result is resent with every later request: one finding in each, at the same message.
    assert len({d.message_index for d in found.differences}) == 1
    assert [d.request for d in found.differences] == list(range(2, found.wire_requests + 1))


@pytest.mark.slow
@pytest.mark.parametrize("name", SCENARIOS)
def test_every_bundled_scenario_agrees(name: str, tmp_path: Path) -> None:
    _agrees(_record(name, tmp_path))


@pytest.mark.slow
def test_a_resumed_session_agrees_and_its_first_run_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``claude -p "go on" --resume ID`` appends to the same transcript: its import holds the
    first run's requests too, which this wire never carried. Paired by the ids of their
    answers, the resumed requests agree, and the earlier ones are named, not missing."""
    from tracer.agent.scripted import ScriptedResponse
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_resumed_claude_code

    first = _record("03-three-tools", tmp_path)
    records = [json.loads(x) for x in transcript_path(first).read_text().splitlines() if x]
    scenario = load_scenario(SCENARIOS_DIR / "03-three-tools.yaml")
    call = {"type": "tool_use", "id": "toolu_01resumed", "name": "Read",
            "input": {"file_path": "greet.py"}}  # fmt: skip
    scenario.responses = [
        ScriptedResponse([call], "tool_use"),
        ScriptedResponse([{"type": "text", "text": "Resumed."}], "end_turn"),
    ]
    resumed = tmp_path / "resumed.trace.jsonl"
    monkeypatch.setenv("TRACER_SANDBOX", "none")  # as _record: the walls are not the point
    record_resumed_claude_code(scenario, records, resumed, claude=real_claude())
    found = compare_files(transcript_path(resumed), resumed)
    assert [d.message for d in found.differences] == []
    assert (found.wire_requests, found.rebuilt_requests) == (2, 4)
    assert {u.what: u.count for u in found.unknowable}["earlier"] == 2
