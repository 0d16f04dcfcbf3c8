"""Files that are not files, files tracer may not read, and lines that are not strict JSON.

Each is one line ``file:line: what`` and exit 2. A FIFO, a character device or a folder is refused
by every command that reads a file, before anything waits on it; a file without read permission
says so in words. A JSON line is refused with its line and column for bad UTF-8, a NUL byte, a
lone surrogate, nesting too deep, NaN, or a length over the bound.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from untrusted_helpers import MAIN, TRACE_COMMANDS, _one_error, _run

from tracer.errors import UserError
from tracer.files.untrusted import loads, read_bytes


def _special(tmp_path: Path, what: str) -> Path:
    if what.startswith("/dev/"):
        return Path(what)
    path = tmp_path / what
    if what == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize(
    ("what", "said"),
    [
        ("fifo", "is a FIFO"),
        ("/dev/zero", "is a character device"),
        ("/dev/urandom", "is a character device"),
        ("directory", "is a directory"),
    ],
)
def test_special_files_are_refused_by_every_reader_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, said: str
) -> None:
    path = _special(tmp_path, what)
    commands = [[c[0], str(path), *c[1:]] for c in TRACE_COMMANDS]
    commands += [
        ["replay", str(path), "--screenshot", str(tmp_path / "x.svg")],
        ["record", "--scenario", str(path), "-o", str(tmp_path / "r.jsonl")],
        ["import", "claude-code", str(path), "-o", str(tmp_path / "c.jsonl")],
        ["import", "api-log", str(path), "-o", str(tmp_path / "a.jsonl")],
    ]
    for argv in commands:
        code, _, err = _run(capsys, argv)  # a FIFO without a writer would block an open()
        if argv[0] == "replay" and what == "directory":
            _one_error(code, err, str(path), "no traces")  # a folder lists its traces
            continue
        if argv[:2] == ["import", "claude-code"] and what == "directory":
            _one_error(code, err, str(path), "no Claude Code session")  # a project folder
            continue
        _one_error(code, err, str(path), said, "refused")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "locked.trace.jsonl"
    path.write_bytes(MAIN.read_bytes())
    path.chmod(0)
    for argv in (["show", str(path)], ["record", "--scenario", str(path)]):
        code, _, err = _run(capsys, argv)
        _one_error(code, err, "permission denied")


def test_permission_errors_are_worded_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same path as above for a root user: os.open itself refuses."""

    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(UserError, match="locked: permission denied"):
        read_bytes("locked")


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"a": "\xff"}', "not valid UTF-8 (byte 0xff at column 8)"),
        (b'{"a": 1}\x00', "NUL byte at column 9"),
        (b'{"a": "\\ud800"}', "lone surrogate \\ud800"),
        (b'{"a": "x\\udc00"}', "lone surrogate \\udc00"),
        (b"[" * 100 + b"]" * 100, "nested too deeply"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"t": NaN}', "NaN is not JSON"),
        (b'{"a": 1', "not valid JSON"),
    ],
)
def test_json_lines_are_bounded_and_strictly_decoded(raw: bytes, said: str) -> None:
    with pytest.raises(UserError) as err:
        loads(raw, "f.jsonl", 7)
    assert str(err.value).startswith("f.jsonl:7: ") and said in str(err.value)


def test_a_surrogate_pair_written_as_escapes_is_fine() -> None:
    assert loads(b'{"a": "\\ud83d\\ude00"}', "f", 1) == {"a": "😀"}


def test_line_length_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tracer.files.untrusted.MAX_LINE", 100)
    with pytest.raises(UserError, match="line too long"):
        loads(b'"' + b"x" * 200 + b'"', "f", 1)
