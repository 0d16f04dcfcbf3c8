"""Attacks on the readers: numbers no export can write, files too big to hold, a first line that
never ends, YAML that refers to itself or has keys that are not strings.

Each case is what a shared file could hold, and each must end the way bad input ends in tracer:
one line saying what and where, exit 2, no traceback, in bounded time and memory. The big files
are sparse (``os.truncate``): 20 GB on disk costs nothing until someone reads it. A case that
could hang runs in a child process under a timeout and an address-space limit, so the old
behaviour fails the test (a timeout, a MemoryError) instead of stalling or swapping the suite.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.files.paths import RECORDINGS_DIR, ROOT
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

MAIN = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
GB = 1000**3


def _lines() -> list[str]:
    return MAIN.read_text(encoding="utf-8").splitlines()


def _one_line(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out = capsys.readouterr()
    assert code == 2, out.err
    assert "Traceback" not in out.err
    (line,) = out.err.strip().splitlines()
    return line


def _bounded(args: list[str], timeout: float = 60, memory: int = 1 << 31) -> Any:
    """``python -m tracer ARGS`` with at most ``memory`` bytes of address space."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "tracer", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
        preexec_fn=limit,
    )


# -- numbers out of range ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    ["1e400", "-1e400", "1" + "0" * 400 + ".0", "1E+999"],
    ids=["inf", "-inf", "long-float", "upper-e"],
)
def test_a_number_out_of_range_is_refused_where_the_trace_is_read(
    number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines()
    at = next(i for i, line in enumerate(lines) if '"kind":"response"' in line)
    data = json.loads(lines[at])
    lines[at] = json.dumps(data)[:-1] + f', "x_size": {number}}}'
    trace = tmp_path / "big-number.trace.jsonl"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")

    _count, problems, _notes = validate_trace(trace)
    assert any(f"{trace}:{at + 1}: " in p and "out of range" in p for p in problems), problems
    for command in (["export", str(trace), "-f", "md"], ["export", str(trace), "-f", "otlp-json"]):
        line = _one_line(capsys, main(command))
        assert line.startswith(f"tracer: {trace}:{at + 1}: ") and "out of range" in line


def test_ordinary_numbers_still_read() -> None:
    reader = TraceReader(MAIN)
    assert len(list(reader)) == len(_lines()) - 1


# -- files too big to hold ---------------------------------------------------------------------


def _sparse(path: Path, head: bytes, size: int) -> Path:
    path.write_bytes(head)
    os.truncate(path, size)
    return path


def test_a_header_then_20_gb_of_zeros_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _sparse(tmp_path / "huge.trace.jsonl", (_lines()[0] + "\n").encode(), 20 * GB)
    for command in ("show", "validate", "doctor", "hooks"):
        line = _one_line(capsys, main([command, str(trace)]))
        assert line.startswith(f"tracer: {trace}: too large (20,000,000,000 bytes")


def test_a_long_run_of_zeros_is_refused_after_one_line_s_worth(tmp_path: Path) -> None:
    # Under the file limit, so the reader scans: it must stop at the line limit (64 MB), in
    # chunks, not read 4 GB in one call. The child has 1.5 GB of address space.
    trace = _sparse(tmp_path / "zeros.trace.jsonl", (_lines()[0] + "\n").encode(), 4 * GB)
    proc = _bounded(["show", str(trace)], memory=3 << 29)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip() == f"tracer: {trace}:2: line too long (over 67,108,864 bytes)"


def test_a_first_line_with_no_newline_is_refused_in_linear_time(tmp_path: Path) -> None:
    # 100 MB and no newline. The header used to be grown 64 KB at a time and searched whole at
    # every step: 27 s before the refusal. Read once, it takes about a second; 60 s is the bound.
    trace = tmp_path / "one-line.trace.jsonl"
    with trace.open("wb") as out:
        out.write(b'{"format":"tracer",')
        out.write(b" " * (100 * 1024 * 1024))
    proc = _bounded(["show", str(trace)])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"tracer: {trace}:1: not a tracer trace (line too long")


@pytest.mark.parametrize(
    "command",
    [["import", "claude-code"], ["import", "api-log"]],
    ids=["claude-code", "api-log"],
)
def test_an_import_of_a_2_gb_file_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _sparse(tmp_path / "big.jsonl", b'{"type":"user"}\n', 2 * GB)
    out = tmp_path / "out.trace.jsonl"
    line = _one_line(capsys, main([*command, str(source), "-o", str(out)]))
    assert line.startswith(f"tracer: {source}: too large (2,000,000,000 bytes")
    assert not out.exists()


# -- YAML that refers to itself, keys that are not strings ------------------------------------


@pytest.mark.parametrize(
    ("text", "line_no", "said"),
    [
        ("name: s\nprompt: &p {x: *p}\nresponses:\n  - text: hi\n", 2, "alias refers to"),
        ("loop: &x [*x]\nname: s\nprompt: p\nresponses:\n  - text: hi\n", 1, "alias refers"),
        ("name: s\nprompt: p\nresponses:\n  - text: hi\n1: x\n", 5, "must be a string, not int"),
        ("name: s\nprompt: p\ntitle: {true: x}\nresponses: []\n", 3, "not bool True"),
        ("name: s\nprompt: p\nmax_turns: .inf\nresponses: []\n", None, "out of range"),
    ],
    ids=["self-alias", "self-list", "int-key", "bool-key", "infinity"],
)
def test_a_scenario_that_cannot_be_a_value_is_one_line(
    text: str,
    line_no: int | None,
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text, encoding="utf-8")
    out = tmp_path / "t.trace.jsonl"
    line = _one_line(capsys, main(["record", "--scenario", str(scenario), "-o", str(out)]))
    where = f"{scenario}:{line_no}: " if line_no else f"{scenario}: "
    assert line.startswith(f"tracer: {where}") and said in line, line


@pytest.mark.parametrize(
    "data",
    ['{"type": "ping", "n": 1e400}', '{"type": "ping", "n": NaN}', "[" * 100_000 + "]" * 100_000],
    ids=["inf", "nan", "deep"],
)
def test_a_logged_stream_event_out_of_range_is_skipped(data: str) -> None:
    from tracer.importers.api_log.sse import accumulate, sse_events

    raw = f'event: ping\ndata: {data}\n\nevent: message_stop\ndata: {{"type": "x"}}\n\n'
    assert sse_events(raw) == [{"type": "x"}]
    start = {"type": "content_block_start", "content_block": {"type": "tool_use", "id": "t"}}
    delta = {"type": "content_block_delta", "delta": {"type": "input_json_delta"}}
    delta["delta"]["partial_json"] = data
    message = accumulate([start, delta, {"type": "content_block_stop", "index": 0}])
    assert message["content"][0]["input"] == {"_partial_json": data}


# -- a transcript followed while it is written -------------------------------------------------


def test_following_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    os.mkfifo(source)  # no writer: opening it to read its first line would wait forever
    proc = _bounded(["import", "claude-code", str(source), "--follow", "-o", str(tmp_path / "o")])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"tracer: {source}: is a FIFO (named pipe), not a Claude Code transcript: refused"
    )


def test_following_a_transcript_of_zeros_stops_at_the_line_limit(tmp_path: Path) -> None:
    # 900 MB with no newline (under the 1 GiB a transcript may have): the follow reads it a
    # step at a time and refuses the line once it passes 64 MB, in a child with 1.5 GB of
    # address space. A bigger file is refused from its size, as a whole-file import does.
    source = _sparse(tmp_path / "s.jsonl", b'{"type":"user"}\n', 900 * 1000**2)
    out = tmp_path / "o.trace.jsonl"
    args = ["import", "claude-code", str(source), "--follow", "--idle-exit", "1", "-o", str(out)]
    proc = _bounded(args, memory=3 << 29)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        f"tracer: {source}:2: line too long (over 67,108,864 bytes)"
    )
