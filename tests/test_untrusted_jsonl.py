"""A JSON-lines file read whole, or a piece at a time, gives what its lines read one by one give.

``read_jsonl`` cuts a file into views of its lines and reads each: every line gets the value, or
the refusal, ``loads()`` gives it; line numbers run on across pieces, a bad line is named once
with its own number, and only the last line may be torn. ``read_pieces`` hands back every byte in
order, each piece ending after a newline, within the same size bound ``read_bytes`` keeps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from untrusted_helpers import STRICT_LINES, _long

from tracer.errors import UserError
from tracer.files.untrusted import loads


def test_a_file_with_a_long_integer_reads_it_as_the_stdlib_does(tmp_path: Path) -> None:
    from tracer.importers.jsonl import read_jsonl
    from tracer.importers.output import ImportReport

    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 123456789012345678901234567890, "f": 1.5}\n')
    records = read_jsonl(path, ImportReport(source=str(path)))
    assert records == [(1, {"n": 1}), (2, {"n": 123456789012345678901234567890, "f": 1.5})]
    assert isinstance(records[1][1]["n"], int)


def test_a_whole_file_is_read_as_its_lines_are_one_by_one(tmp_path: Path) -> None:
    """read_jsonl cuts a file into views of its lines (split_lines) and reads each, short and
    long: each line must still get the value, or the refusal, loads() gives it."""
    from tracer.files.untrusted import SHORT_LINE, split_lines
    from tracer.importers.jsonl import read_jsonl
    from tracer.importers.output import ImportReport

    lines = [raw.strip() for raw in STRICT_LINES if b"\n" not in raw and raw.strip()]
    objects = [b'{"line":%d,"v":%s}' % (i, raw) for i, raw in enumerate(lines)]
    objects += [_long(b'{"line":%d,"v":%s}' % (i, raw)) for i, raw in enumerate(lines)]
    assert any(len(line) > SHORT_LINE for line in objects)  # both kinds of line are read
    data = b"\n".join(objects) + b"\n"
    assert [bytes(line) for line in split_lines(data)] == data.split(b"\n")[:-1]
    assert [bytes(x) for x in split_lines(b"a\n\nb")] == [b"a", b"", b"b"]  # torn end
    path = tmp_path / "strict.jsonl"
    path.write_bytes(data)
    report = ImportReport(source=str(path))
    whole = {number: obj for number, obj in read_jsonl(path, report)}
    for number, raw in enumerate(objects, start=1):
        try:
            expected = loads(raw, path, number)
        except UserError:
            assert number not in whole
            continue
        assert isinstance(expected, dict) and whole[number] == expected


@pytest.mark.parametrize("piece", [1, 40, 10_000])
def test_a_file_read_a_piece_at_a_time_is_the_file_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """read_jsonl splits and parses a file a piece at a time (a piece ends after a newline):
    line numbers run on across pieces, a bad line in a later piece is named once, with its own
    number, and only the file's last line can be torn."""
    from tracer.importers import jsonl
    from tracer.importers.output import ImportReport

    lines = [b'{"n":%d,"pad":"%s"}' % (i, b"x" * (i * 7 % 23)) for i in range(12)]
    lines[3] = b""  # blank: passed over, but it is still a line
    lines[7] = b'{"n": 7, "broken'  # bad in the middle: skipped and counted
    lines[9] = b'{"deep":' + b"[" * 70 + b"]" * 70 + b"}"  # nested too deep: refused
    data = b"\n".join(lines) + b'\n{"torn": tr'
    path = tmp_path / "pieces.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(jsonl, "PIECE", piece)
    report = ImportReport(source=str(path))
    records = jsonl.read_jsonl(path, report)
    assert [n for n, _ in records] == [1, 2, 3, 5, 6, 7, 9, 11, 12]
    assert all(obj == {"n": n - 1, "pad": "x" * ((n - 1) * 7 % 23)} for n, obj in records)
    assert report.skipped == {"unreadable lines": 2, "torn last line": 1}
    notes = [n for n in report.notes if "skipped, with any others" in n]
    assert len(notes) == 1 and notes[0].startswith(f"{path}:8: ")
    torn = f"{path}:13: the last line is cut off; kept the 9 complete lines before it"
    assert torn in report.notes


@pytest.mark.parametrize("piece", [1, 3, 8, 1 << 16])
def test_a_file_in_pieces_is_the_file_cut_after_newlines(tmp_path: Path, piece: int) -> None:
    """read_pieces gives back every byte, in order, each piece ending just after a newline (the
    last where the file ends), a line longer than a piece whole in one; and it keeps the limit
    read_bytes keeps."""
    from tracer.files.untrusted import read_pieces

    data = b"ab\n\ncdefghijklmnop\nq\n" + b"r" * 20 + b"\nst"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    pieces = list(read_pieces(path, piece=piece))
    assert b"".join(pieces) == data
    assert all(p.endswith(b"\n") for p in pieces[:-1]) and pieces[-1].endswith(b"st")
    longest = max(len(line) + 1 for line in data.split(b"\n"))
    assert all(len(p) <= piece + longest for p in pieces)  # about a piece, or one whole line
    path.write_bytes(b"")
    assert list(read_pieces(path, piece=piece)) == []
    path.write_bytes(data)
    with pytest.raises(UserError, match="too large"):
        list(read_pieces(path, limit=10, piece=piece))
