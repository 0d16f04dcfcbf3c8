"""The importer's line scanner reads what ``json.loads`` on each line would read.

``parse_lines`` skips the obvious cases quickly; on awkward lines (blank, CRLF, padded, trailing
words, not an object, a byte-order mark) it must keep and count exactly what the plain reading
keeps and counts, still tell a torn last line from a broken one, and decode each line strictly on
its own, so one bad byte costs one line.
"""

from __future__ import annotations

import json
from pathlib import Path

from tracer.importers.jsonl import parse_lines, read_jsonl
from tracer.importers.output import ImportReport

AWKWARD_LINES = [
    '{"type":"user","n":1}',
    "",
    "   ",
    '{"type":"assistant"}\r',  # a file written with CRLF line ends
    '   {"padded":true}   ',
    '{"a":1} trailing words',
    "[1, 2]",
    "42",
    '"just a string"',
    '{"text":"中文 and 😀","nested":{"x":[1.5,null,true]}}',
    '{"broken": ',
    "\ufeff{}",  # a byte-order mark json.loads refuses
    '{"last":"line"}',
]


def _plain_parse(lines: list[str]) -> tuple[list[tuple[int, dict]], int | None, dict[str, int]]:
    """What parse_lines did before its shortcut: json.loads on every non-blank line."""
    records, first_bad, skipped = [], None, {}
    for number, raw in enumerate(lines, start=1):
        if not raw or raw.isspace():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            first_bad = first_bad or number
            skipped["unreadable lines"] = skipped.get("unreadable lines", 0) + 1
            continue
        records.append((number, obj))
    return records, first_bad, skipped


def test_parse_lines_reads_every_awkward_line_as_json_loads_does() -> None:
    report = ImportReport(source="awkward")
    records, first_bad = parse_lines(AWKWARD_LINES, 1, report)
    assert (records, first_bad, report.skipped) == _plain_parse(AWKWARD_LINES)
    assert [n for n, _ in records] == [1, 4, 5, 10, 13]


def test_a_torn_last_line_is_still_told_apart_from_a_broken_one() -> None:
    report = ImportReport(source="torn")
    records, first_bad = parse_lines(['{"a":1}', '{"b": [1, 2'], 1, report, torn=True)
    assert (records, first_bad) == ([(1, {"a": 1})], None)
    assert report.skipped == {"torn last line": 1}


def test_lines_decoded_one_by_one_are_the_lines_of_the_decoded_file(tmp_path: Path) -> None:
    # Invalid UTF-8 right before a newline, a character cut in half, wide characters on some
    # lines only, CRLF, and a last line without its newline. Each line is decoded strictly on
    # its own (tracer.files.untrusted): a line with a bad byte is unreadable and counted, never
    # silently mended, and the lines around it read as they would in a clean file.
    data = (
        b'{"a":"\xe4\xb8"}\n{"b":"\xf0\x9f\x98\x80"}\r\n\xff\xfe\n{"c":"\xe4\xb8\xad\xe6"}\n'
        b'{"plain":"ascii"}\n{"d":"cut'
    )
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(data)
    report = ImportReport(source=str(path))
    got = read_jsonl(path, report)
    assert got == [(2, {"b": "\U0001f600"}), (5, {"plain": "ascii"})]
    assert report.skipped == {"unreadable lines": 3, "torn last line": 1}
    assert any(f"{path}:1: " in note and "UTF-8" in note for note in report.notes), report.notes
