"""A trace damaged by hand stops at the reader, naming the line it broke on, in every command.

A field of the wrong type (an event's or the header's), a message pointing at itself, a deleted
line, a request naming a message no event holds, a lone surrogate on its way to the hooks view or
the markdown: each is one ``tracer:`` line with ``file:line`` (``validate`` lists it as a problem
instead). The header's fields only the writer uses may hold anything. A trace cut before its
session ended still reads, and every command says it is incomplete.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from untrusted_helpers import MAIN, TRACE_COMMANDS, _line_of, _lines, _one_error, _run, _write

from tracer.errors import UserError
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace


@pytest.mark.parametrize(
    ("kind", "field", "value", "said"),
    [
        ("request", "seq", 3.0, "request event: seq must be integer, not float"),
        ("turn_start", "turn", [1], "turn_start event: turn must be integer, not list"),
        ("message", "content", 5, "content must be a string or a list of blocks, not int"),
        ("message", "content", [7], "content[0] must be a block (an object), not int"),
        ("request", "tail", [{"role": "user", "parts": [[1, 2]]}], "not a [uuid, index] pair"),
        ("mapping", "block", {"type": 3}, "block has no string 'type'"),
        ("session_start", "title", {"en": ["x"]}, "title must map languages to strings"),
        ("response", "usage", "many", "usage must be object, not str"),
    ],
)
def test_wrong_types_stop_at_the_reader_with_their_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    field: str,
    value: Any,
    said: str,
) -> None:
    objects = _lines()
    at = _line_of(objects, kind)
    objects[at][field] = value
    path = _write(tmp_path / "t.jsonl", objects)
    for command in TRACE_COMMANDS:
        code, out, err = _run(capsys, [command[0], str(path), *command[1:]])
        if command == ["validate"]:
            assert code == 1 and f"{path}:{at + 1}: " in out, out
        else:
            _one_error(code, err, f"{path}:{at + 1}: ", said)


def test_a_message_pointing_at_itself_is_an_error_not_a_recursion(tmp_path: Path) -> None:
    objects = _lines()
    at = next(i for i, o in enumerate(objects) if o.get("block_seq"))
    objects[at]["block_seq"] = objects[at]["seq"]
    path = _write(tmp_path / "t.jsonl", objects)
    with pytest.raises(UserError, match=f":{at + 1}: message points at seq {at}, which is not"):
        list(TraceReader(path))
    _, problems, _ = validate_trace(path)
    assert any(f":{at + 1}: message points at" in p for p in problems)


def test_a_deleted_line_is_named_where_the_order_breaks(tmp_path: Path) -> None:
    objects = _lines()
    del objects[10]
    path = _write(tmp_path / "t.jsonl", objects)
    with pytest.raises(UserError, match=":11: seq 11 on the line of event 10: a line is missing"):
        list(TraceReader(path))


def test_a_request_naming_an_unknown_message_fails_validate(tmp_path: Path) -> None:
    objects = _lines()
    at = _line_of(objects, "request")
    objects[at]["tail"][0]["parts"][0][0] = "no-such-uuid"
    path = _write(tmp_path / "t.jsonl", objects)
    _, problems, _ = validate_trace(path)
    assert problems == [
        f"{path}:{at + 1}: request 1 names message no-such-uuid, which no earlier message event "
        "holds"
    ]


def test_surrogates_never_reach_hooks_or_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = MAIN.read_text(encoding="utf-8").replace("[DEBUG] Loop turn", "[DEBUG] \\ud800", 1)
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    for argv in (["hooks", str(path)], ["export", str(path), "--format", "md"]):
        code, _, err = _run(capsys, argv)
        _one_error(code, err, "lone surrogate \\ud800")


def test_a_session_without_its_end_is_reported_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    objects = [o for o in _lines() if o.get("kind") != "terminal"]
    path = _write(tmp_path / "cut.jsonl", objects)
    assert not TraceReader(path).complete and TraceReader(MAIN).complete
    code, out, err = _run(capsys, ["validate", str(path)])
    assert code == 0 and "incomplete: the recorder stopped before the session ended" in err
    code, out, err = _run(capsys, ["show", str(path)])
    assert code == 0 and "incomplete" in err
    code, out, err = _run(capsys, ["doctor", str(path)])
    assert f"warning: {path}: the recorder stopped before the session ended" in out
    code, out, err = _run(capsys, ["doctor", str(MAIN)])
    assert "stopped before" not in out + err


def test_a_trace_with_no_step_does_not_validate(tmp_path: Path) -> None:
    path = tmp_path / "header.jsonl"
    path.write_text(MAIN.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    _, problems, _ = validate_trace(path)
    assert problems == [f"{path}: no steps: the recorder stopped before the session started"]


@pytest.mark.parametrize(
    ("field", "value"), [("source", [1]), ("created", 5), ("paths", ["x"]), ("volatile", [3])]
)
def test_a_header_of_the_wrong_types_is_refused_at_line_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any
) -> None:
    objects = _lines()
    objects[0][field] = value
    path = _write(tmp_path / "t.jsonl", objects)
    for command in TRACE_COMMANDS:
        code, _, err = _run(capsys, [command[0], str(path), *command[1:]])
        _one_error(code, err, f"{path}:1: header: ")


@pytest.mark.parametrize(
    ("field", "value"),
    [("name", {"type": 3}), ("title", 7), ("base_url", 5), ("side_calls", 5), ("notes", "x")],
)
def test_a_header_source_field_a_view_reads_of_the_wrong_type_is_refused_at_line_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any
) -> None:
    # A scenario name that was a mapping once passed validate and stopped the replay (the
    # chapter column strips ".yaml" from it); side_calls of 5, the markdown export.
    objects = _lines()
    objects[0]["source"][field] = value
    path = _write(tmp_path / "t.jsonl", objects)
    replay = ["replay", "--screenshot", str(tmp_path / "x.svg"), "--size", "80x24"]
    for command in [*TRACE_COMMANDS, replay]:
        code, _, err = _run(capsys, [command[0], str(path), *command[1:]])
        _one_error(code, err, f"{path}:1: header: source.{field} has the wrong type")
    objects[0]["source"][field] = None  # absent or null: each view has its own default
    _write(path, objects)
    assert _run(capsys, ["validate", str(path)])[0] == 0


def test_a_header_source_field_no_view_reads_may_be_of_any_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The writer's own fields (an import's subagent is its agent id or true, its skipped counts
    # a mapping) are not the reader's business.
    objects = _lines()
    objects[0]["source"].update(subagent=True, skipped={"x": 1}, version=3, session_id=[1])
    path = _write(tmp_path / "t.jsonl", objects)
    for command in TRACE_COMMANDS:
        code, _, err = _run(capsys, [command[0], str(path), *command[1:]])
        assert code in (0, 1) and "tracer: " not in err, (command, err)
