"""Totals of a whole sandbox (issue 31, point 4): memory, the private /tmp, the workspace.

Each limit was per process (``RLIMIT_AS``, ``RLIMIT_FSIZE``) or none at all: /tmp was a tmpfs of
half the RAM, three processes held 2 GB each, three 1 GB files sat in the workspace. The tests
set the totals in megabytes (each has a ``record`` option) and run the real Bash tool in the
real sandbox, or the real recorder.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tracer.agent import pids_cgroup
from tracer.agent.sandbox_choice import find_sandbox
from tracer.agent.tools import ToolContext
from tracer.agent.tools.bash import BashTool
from tracer.agent.totals import Totals, disk_usage, parse_size
from tracer.record import run as record_module
from tracer.record.workspace import SessionDirs

MB = 1 << 20


@pytest.fixture
def dirs() -> Iterator[SessionDirs]:
    made = SessionDirs.create()
    yield made
    made.cleanup()


def _run(ctx: ToolContext, command: str) -> dict[str, Any]:
    out = BashTool().call({"command": command, "timeout": 60_000}, ctx)
    assert out["interrupted"] is False, out
    return out


def test_the_private_tmp_has_a_size(dirs: SessionDirs) -> None:
    walls = find_sandbox(tmp_bytes=8 * MB)
    if walls is None:
        pytest.skip("bwrap cannot start a sandbox on this machine")
    ctx = ToolContext(workspace=dirs.workspace, sandbox=walls)
    out = _run(ctx, "head -c 20M /dev/zero > /tmp/fill; echo rc=$?; stat -c %s /tmp/fill")
    rc, size = out["stdout"].split()
    assert rc != "rc=0" and "No space left on device" in out["stderr"], out
    assert int(size) <= 8 * MB


ALLOCATE = "python3 -c 'import time; b = bytearray(40 << 20); time.sleep(3)'"


def test_three_processes_share_one_memory_total(dirs: SessionDirs) -> None:
    if pids_cgroup.hierarchy("memory") is None:
        pytest.skip("no memory cgroup can be made here (needs root and a memory hierarchy)")
    ctx = ToolContext(
        workspace=dirs.workspace, sandbox=find_sandbox(), totals=Totals(memory_bytes=64 * MB)
    )
    # Each one alone is far under its address-space limit (4 GB) and under the total.
    alone = _run(ctx, f"{ALLOCATE}; echo rc=$?")
    assert "rc=0" in alone["stdout"], alone
    # Together (40 MB each, held for seconds so that they overlap) they pass the total.
    together = _run(ctx, f"for i in 1 2 3; do ({ALLOCATE}; echo rc=$?) & done; wait")
    codes = together["stdout"].split()
    assert len(codes) == 3 and "rc=137" in codes, together  # SIGKILL from the OOM killer
    assert "memory total of 64 MB (--max-memory) was reached" in together["stderr"], together


def test_without_a_memory_cgroup_the_recording_says_so_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(record_module, "hierarchy", lambda controller="pids": None)
    record_module._note_once.cache_clear()
    try:
        record_module._walls(False, False, Totals(memory_bytes=64 * MB))
        record_module._walls(False, False, Totals(memory_bytes=64 * MB))
    finally:
        record_module._note_once.cache_clear()
    lines = [line for line in capsys.readouterr().err.splitlines() if "memory" in line]
    assert lines == [
        "tracer: limit: no memory cgroup can be made here: the memory total (64M, --max-memory) "
        "is not held; each process keeps its own address-space limit"
    ]


def test_past_the_workspace_total_the_session_ends_saying_why(
    tracer_cli: Any, write_scenario: Any, open_recording: Any, tmp_path: Any
) -> None:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "head -c 3M /dev/zero > a"}}]},
                {"tool_use": [{"name": "Bash", "input": {"command": "echo never"}}]},
                {"text": "never either"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli(
        "record", "--scenario", str(scenario), "-o", str(out), "--max-workspace", "1M"
    )
    assert proc.returncode == 0, proc.stderr
    rec = open_recording(out)
    why = "the workspace holds more than its total of 1M (--max-workspace): the session ends here"
    assert rec.terminal.reason == "aborted_tools" and rec.terminal.error == why
    (run,) = rec.of("tool_run")  # the second command never ran
    assert run.output["stderr"].endswith(f"tracer: {why}")
    assert why in rec.results()[0]["content"]  # the model's side says it too


def test_under_the_workspace_total_nothing_changes(
    tracer_cli: Any, write_scenario: Any, open_recording: Any, tmp_path: Any
) -> None:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "head -c 1M /dev/zero > a"}}]},
                {"text": "done"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli(
        "record", "--scenario", str(scenario), "-o", str(out), "--max-workspace", "4M"
    )
    assert proc.returncode == 0, proc.stderr
    rec = open_recording(out)
    assert rec.terminal.reason == "completed" and not rec.terminal.error


def test_disk_usage_counts_blocks_once_and_follows_no_link(tmp_path: Any) -> None:
    (tmp_path / "a").write_bytes(b"x" * (256 * 1024))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * (256 * 1024))
    (tmp_path / "hard").hardlink_to(tmp_path / "a")  # the same blocks: counted once
    (tmp_path / "link").symlink_to("/usr")  # never followed
    used = disk_usage(tmp_path)
    assert 512 * 1024 <= used < 700 * 1024
    assert disk_usage(tmp_path, stop_after=1) > 1  # stops early, still past


@pytest.mark.parametrize(
    ("text", "size"), [("64M", 64 * MB), ("2G", 2 << 30), ("512k", 512 << 10), ("1000", 1000)]
)
def test_sizes_are_read_as_written(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_a_bad_size_is_one_line_and_exit_2(tracer_cli: Any, write_scenario: Any) -> None:
    scenario = write_scenario({"responses": [{"text": "ok"}]})
    proc = tracer_cli("record", "--scenario", str(scenario), "--max-memory", "12X")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--max-memory" in proc.stderr
    assert "is not a size" in proc.stderr
