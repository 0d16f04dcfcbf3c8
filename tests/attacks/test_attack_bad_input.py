"""Bad input that ended in a traceback, a flood or a page (issue 31, point 7).

A scenario's fault spec of the wrong shape ended in five different tracebacks in
``tracer/agent/faults.py``; ``validate`` on three million ``{}`` lines printed every problem for
minutes; ``export --format html`` wrote a page (exit 0) for a trace ``show`` refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import ROOT

MAIN_WALK = ROOT / "recordings" / "01-main-walk.trace.jsonl"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("{remove: 1}", "faults.malform_block.all.remove must be list, not int"),
        ("{set: 5}", "faults.malform_block.all.set must be a mapping of field names to values"),
        ("{set: ab}", "faults.malform_block.all.set must be a mapping of field names to values"),
        ("just-a-string", "faults.malform_block.all must be a mapping"),
        ("[1, 2]", "faults.malform_block.all must be a mapping"),
        ("{remove: [[1]]}", "faults.malform_block.all.remove must list strings"),
        ("{other: 1}", "unknown key 'other' in faults.malform_block.all"),
    ],
)
def test_every_fault_spec_shape_is_one_line_and_exit_2(
    tracer_cli: Any, tmp_path: Path, spec: str, said: str
) -> None:
    scenario = tmp_path / "f.yaml"
    scenario.write_text(
        f"name: f\nprompt: go\nfaults:\n  malform_block:\n    all: {spec}\n"
        "responses:\n  - text: hi\n"
    )
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"tracer: {scenario}:5: {said}"), line


@pytest.mark.parametrize("value", ["abc", "[1]", "5"])
def test_malform_block_itself_of_the_wrong_shape(
    tracer_cli: Any, tmp_path: Path, value: str
) -> None:
    scenario = tmp_path / "f.yaml"
    scenario.write_text(
        f"name: f\nprompt: go\nfaults:\n  malform_block: {value}\nresponses:\n  - text: hi\n"
    )
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"tracer: {scenario}:4: faults.malform_block must be a mapping "
        "(tool_use id or all: {remove, set})"
    ]


def test_a_good_spec_still_breaks_the_block(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "faults": {"malform_block": {"all": {"remove": ["is_error"], "set": {"x": 1}}}},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "true"}}]},
                {"text": "ok"},
            ],
        }
    )
    block = rec.results()[0]
    assert "is_error" not in block and block["x"] == 1


def test_validate_stops_after_100_problems(tracer_cli: Any, tmp_path: Path) -> None:
    trace = tmp_path / "flood.trace.jsonl"
    header = MAIN_WALK.read_text().splitlines()[0]
    trace.write_text(header + "\n" + "{}\n" * 3_000_000)  # 9 MB
    proc = tracer_cli("validate", str(trace), timeout=120)
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 101
    assert lines[-1] == f"{trace}: stopped after 100 problems, and 2999900 more line(s) not checked"
    assert proc.stderr.strip().splitlines()[-1] == f"{trace}: 100+ problem(s) in 3000000 events"


def test_validate_under_the_cap_lists_every_problem(tracer_cli: Any, tmp_path: Path) -> None:
    trace = tmp_path / "few.trace.jsonl"
    trace.write_text(MAIN_WALK.read_text().splitlines()[0] + "\n" + "{}\n" * 3)
    proc = tracer_cli("validate", str(trace))
    assert proc.returncode == 1 and len(proc.stdout.strip().splitlines()) == 3


def _broken(tmp_path: Path, line: int, key: str, value: Any) -> Path:
    lines = MAIN_WALK.read_text().splitlines()
    event = json.loads(lines[line])
    event[key] = value
    lines[line] = json.dumps(event)
    path = tmp_path / "broken.trace.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _line_of_kind(kind: str) -> int:
    lines = MAIN_WALK.read_text().splitlines()
    return next(i for i, line in enumerate(lines) if json.loads(line).get("kind") == kind)


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [("debug_hook", "turn", None), ("debug_hook", "hook", {}), ("tool_start", "batch", [])],
)
def test_every_export_refuses_what_show_refuses(
    tracer_cli: Any, tmp_path: Path, kind: str, key: str, value: Any
) -> None:
    trace = _broken(tmp_path, _line_of_kind(kind), key, value)
    shown = tracer_cli("show", str(trace))
    assert shown.returncode == 2
    refusal = shown.stderr.strip().splitlines()[-1]
    for fmt in ("html", "md", "mermaid", "otlp-json"):
        out = tmp_path / f"out.{fmt}"
        proc = tracer_cli("export", str(trace), "--format", fmt, "-o", str(out))
        assert proc.returncode == 2, (fmt, proc.stderr)
        assert proc.stderr.strip().splitlines()[-1] == refusal, fmt
        assert not out.exists(), fmt


def test_a_page_is_drawn_where_show_draws_a_request_it_cannot_rebuild(
    tracer_cli: Any, tmp_path: Path
) -> None:
    # A message's uuid changed: a request then names a message the trace lacks. show draws it;
    # so does the page (without the rebuilt bodies), instead of a KeyError traceback.
    trace = _broken(tmp_path, _line_of_kind("message"), "uuid", "x")
    assert tracer_cli("show", str(trace)).returncode == 0
    out = tmp_path / "page.html"
    proc = tracer_cli("export", str(trace), "--format", "html", "-o", str(out))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert out.stat().st_size > 0
