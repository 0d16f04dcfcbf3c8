"""The fast, seeded subset of the fuzzer: every command on damaged copies of real inputs.

The long run is ``python tests/fuzz/fuzz_harness.py --cases 300``; this one keeps a few cases of
each kind (and every special file) in the normal test run, so a new traceback shows up at once.
The seed is fixed: a failure here reproduces with the same case name.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from fuzz_harness import (
    OWN_TRANSCRIPTS,
    SPECIAL,
    Report,
    block_damages,
    check_case,
    fuzz,
    mutate,
    run,
    sources,
)
from fuzz_shapes import SHAPES, reshape

KINDS = {"trace": 10, "scenario": 6, "transcript": 8, "api_log": 8}


@pytest.mark.parametrize("kind", list(KINDS))
def test_no_traceback_and_no_hang_on_damaged_input(kind: str, tmp_path: Path) -> None:
    if not sources()[kind]:
        pytest.skip(f"no {kind} sources here (the shared fixtures are absent)")
    report = fuzz(KINDS[kind], seed=13, kinds=(kind,), timeout=60, workdir=tmp_path)
    runs = sum(report.runs.values())
    assert runs >= KINDS[kind] + len(SPECIAL)
    assert report.failures == []


def test_the_harness_sees_a_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A check that cannot fail proves nothing: break ``show`` and the harness must say so."""
    import tracer.cli.show

    def broken(reader: object) -> list[str]:
        raise KeyError("boom")

    monkeypatch.setattr(tracer.cli.show, "show_lines", broken)
    trace = sources()["trace"][0]
    outcome = run(["show", str(trace)], timeout=30)
    assert outcome.crash is not None and outcome.crash.startswith("KeyError at ")


def test_the_harness_sees_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import tracer.cli.show

    def stuck(reader: object) -> list[str]:
        time.sleep(30)
        return []

    monkeypatch.setattr(tracer.cli.show, "show_lines", stuck)
    outcome = run(["show", str(sources()["trace"][0])], timeout=0.5)
    assert outcome.crash == "hang"


def test_mutations_are_reproducible_and_change_the_input() -> None:
    import random

    data = sources()["trace"][0].read_bytes()
    first = [mutate(random.Random(seed), data, "trace") for seed in range(40)]
    again = [mutate(random.Random(seed), data, "trace") for seed in range(40)]
    assert first == again
    assert sum(out != data for _, out in first) >= 30
    assert len({name for name, _ in first}) >= 8


#: Damaged records per seeded run: each is imported and its trace read by every command.
BLOCK_CASES = 12


def test_every_damaged_field_of_a_record_imports_into_a_trace_every_command_reads(
    tmp_path: Path,
) -> None:
    # One field of one record at a time (left out, of a wrong type, a block type no API has),
    # in a response with a tool call and in the result that answers it. A missing content key
    # once imported "fine" into a trace validate, show, doctor and every export refused.
    source = OWN_TRANSCRIPTS[0].parent / "v2.1-result-before-assistant.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in lines]
    call = next(i for i, r in enumerate(records) if "tool_use" in json.dumps(r.get("message")))
    answer = next(i for i, r in enumerate(records) if r.get("toolUseResult") is not None)
    damages = [(i, d) for i in (call, answer) for d in block_damages(records[i])]
    assert len(damages) > 60  # every field: the envelope's, the message's, each block's
    report = Report()
    for n, (i, (name, damaged)) in enumerate(random.Random(34).sample(damages, BLOCK_CASES)):
        path = tmp_path / f"case-{n}.jsonl"
        path.write_text(
            "\n".join(json.dumps(damaged) if k == i else x for k, x in enumerate(lines)) + "\n",
            encoding="utf-8",
        )
        check_case(f"line {i + 1}: {name}", "transcript", path, tmp_path, report, 60, {"replay"})
    assert report.runs["import-claude-code"] == BLOCK_CASES
    assert report.runs["validate"] >= BLOCK_CASES  # every import went on to its trace
    assert report.failures == []


def test_the_harness_sees_an_import_that_writes_a_trace_validate_refuses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Mended no more, a result whose content is -1 makes a trace the readers refuse: the
    import's own read check says so (exit 1), and the harness counts it."""
    import tracer.importers.shapes

    monkeypatch.setattr(tracer.importers.shapes, "is_clean", lambda *args: True)
    source = OWN_TRANSCRIPTS[0].parent / "v2.1-result-before-assistant.jsonl"
    records = [json.loads(x) for x in source.read_text(encoding="utf-8").splitlines()]
    answered = next(r for r in records if r.get("toolUseResult") is not None)
    answered["message"]["content"][0]["content"] = -1
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = Report()
    check_case("content -1", "transcript", path, tmp_path, report, 60, {"replay"})
    assert any("the import wrote a trace validate refuses" in f for f in report.failures)


@pytest.mark.parametrize(
    "source", ["v2.1-result-before-assistant.jsonl", "v1.0-inline-sidechain.jsonl"]
)
def test_every_shape_of_another_version_imports_into_a_trace_every_command_reads(
    source: str, tmp_path: Path
) -> None:
    # Valid JSON, shaped as another version might write it: a content that is one block, a
    # message that is a string, a result inside the AI's message, a toolUseResult of any type,
    # timestamps as numbers, two records with one uuid, a parentUuid loop, ...
    data = (OWN_TRANSCRIPTS[0].parent / source).read_bytes()
    report = Report()
    for n, name in enumerate(sorted(SHAPES)):
        shape, shaped = reshape(random.Random(n), data, name)
        assert shape == name and shaped != data, name  # every shape finds a place to change
        path = tmp_path / f"case-{n}.jsonl"
        path.write_bytes(shaped)
        check_case(f"{source}: {name}", "transcript", path, tmp_path, report, 60, {"replay"})
    assert report.runs["import-claude-code"] == len(SHAPES)
    assert report.failures == []


def test_the_long_run_can_draw_from_named_mutations_only() -> None:
    data = (OWN_TRANSCRIPTS[0].parent / "v2.1-result-before-assistant.jsonl").read_bytes()
    names = {
        mutate(random.Random(s), data, "transcript", frozenset({"shape"}))[0] for s in range(60)
    }
    drawn = {part for name in names for part in name.removeprefix("shape:").split("+")}
    assert drawn == set(SHAPES)
    assert any("+" in name for name in names)  # several shapes in one file too
