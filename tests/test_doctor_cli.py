"""``tracer doctor`` on the command line: its JSON, its report, its exit codes, its bad input.

Run as a user runs it, ``python -m tracer doctor`` in a subprocess: the JSON has the published
schema; under ``--lang zh`` the report is Chinese throughout, its columns lined up as in English,
and a finding before the first turn is placed at set-up; the exit is 0 with warnings only, 1 with
an error or under ``--strict``, 2 for bad input (one line, no traceback). Traces imported from
real Claude Code transcripts and API logs are read; the help lists every rule; the doctor imports
neither anthropic nor textual.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from doctor_helpers import _rewrite

from tracer.doctor import FINDINGS_JSON_SCHEMA, RULES
from tracer.files.paths import MAIN_RECORDING, ROOT

# The doctor's files share one xdist worker: doctor_helpers' fault_traces records the faults once.
pytestmark = pytest.mark.xdist_group("doctor")
pytest_plugins = ["doctor_helpers"]


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
