"""Our small transcripts as sessions: their agent files, the session list, show, and the doctor.

A subagent file without its prompt says so; the 2.0 layout finds the agent file beside its
session, and a missing one names the folders it was looked for in. ``--list`` passes over agent
files and empty files and reads an image prompt; ``show`` cuts Chinese text by display cells; and
the doctor finds no error in any of our transcripts but the one each was built to hold.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from import_helpers import (
    DATA,
    TRANSCRIPTS,
    doctor_errors,
    import_ours,
    of_kind,
)

from tracer.cli.main import main
from tracer.doctor import run_doctor
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader


def test_a_subagent_file_without_its_prompt_says_so_and_the_doctor_knows(tmp_path: Path) -> None:
    events, _, out = import_ours("v2.1-subagent-without-prompt.jsonl", tmp_path)
    assert [e.topic for e in of_kind(events, "import_note")] == ["missing_prompt", "counts"]
    assert of_kind(events, "request")[0].message_count == 0
    assert doctor_errors(out) == []


def test_the_2_0_layout_finds_the_agent_file_beside_the_session(tmp_path: Path) -> None:
    events, _, _ = import_ours("layout-2.0/5e55a0f1-0000-4000-8000-000000000001.jsonl", tmp_path)
    (link,) = [e for e in of_kind(events, "import_note") if e.topic == "subagent"]
    assert link.data["file"].endswith("layout-2.0/agent-b1d2e3f4.jsonl")
    assert link.data["tool_calls"] == 1 and "missing" not in link.data


def test_a_missing_agent_file_names_where_it_was_looked_for(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(
        (DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl").read_bytes()
    )
    import_claude_code(session, tmp_path / "t.jsonl")
    (link,) = [
        e
        for e in TraceReader(tmp_path / "t.jsonl")
        if e.kind == "import_note" and e.topic == "subagent"
    ]
    assert link.text == (
        f"subagent b1d2e3f4: no agent-b1d2e3f4.jsonl in {tmp_path}/s/subagents nor in {tmp_path}"
    )


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_the_doctor_finds_no_error_but_the_ones_each_file_was_built_with(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    import_claude_code(path, out)
    expected = ["tool-use-id-mismatch"] if "orphan" in path.name else []
    assert [f.rule for f in run_doctor(TraceReader(out)) if f.severity == "error"] == expected
    assert main(["show", str(out)]) == 0


def test_list_skips_agent_files_and_empty_files_and_reads_list_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    for file in (DATA / "layout-2.0").iterdir():
        (project / file.name).write_bytes(file.read_bytes())
    old = project / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
    live = project / "11111111-0000-4000-8000-000000000002.jsonl"
    live.write_bytes((DATA / "v2.1-image-prompt-unfinished-tool.jsonl").read_bytes())
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert main(["import", "claude-code", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert " live " in lines[0] and live.name in lines[0] and "[1 image] 这张截图" in lines[0]
    assert " live " not in lines[1] and "Find the TODOs with a subagent." in lines[1]


def test_show_cuts_cjk_text_by_display_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracer.text.cells import cells

    _, _, out = import_ours("v2.1-image-prompt-unfinished-tool.jsonl", tmp_path)
    assert main(["show", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    prompt = first.split(": ", 1)[1]
    assert prompt.startswith("[1 image] 这张") and prompt.endswith("…")
    assert cells(prompt) <= 48 < len(prompt) * 2
