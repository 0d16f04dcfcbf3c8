"""The reading layer: every kind of bad input is one line ``file:line: what`` and exit 2.

Each test builds the damage by hand (the fuzzer finds them at random; these pin each one down)
and runs the real command line in-process, so what is checked is what a user sees.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.errors import UserError
from tracer.files.paths import RECORDINGS_DIR, SCENARIOS_DIR
from tracer.files.untrusted import loads, read_bytes
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace
from tracer.trace.writer import TraceWriter

MAIN = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
SCENARIO = SCENARIOS_DIR / "01-main-walk.yaml"
TRACE_COMMANDS = [
    ["show"],
    ["hooks"],
    ["validate"],
    ["doctor"],
    ["export", "--format", "md"],
    ["export", "--format", "mermaid"],
    ["export", "--format", "otlp-json"],
]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code: int, err: str, *needles: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("tracer: ")]
    assert code == 2 and len(lines) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in MAIN.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects), "utf-8")
    return path


def _line_of(objects: list[dict[str, Any]], kind: str) -> int:
    """The 0-based list index (file line - 1) of the first event of ``kind``."""
    return next(i for i, o in enumerate(objects) if o.get("kind") == kind)


# -- files that are not files --------------------------------------------------------------------


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


# -- bytes and JSON ------------------------------------------------------------------------------


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


# -- traces: types, order, pointers ---------------------------------------------------------------


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


# -- a session without its end -------------------------------------------------------------------


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


# -- scenarios -----------------------------------------------------------------------------------


def _scenario(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


BASE = "name: s\nprompt: p\nresponses:\n  - text: hi\n"


def _bomb() -> str:
    rows = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    rows += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (BASE + "title: {en: x\0}\n", "s.yaml:5: NUL byte at column"),
        (BASE + "title: " + "[" * 5000 + "]" * 5000 + "\n", "s.yaml:5: refused: nested more"),
        (BASE.replace("prompt: p", 'prompt: "\\ud800"'), "lone surrogate \\ud800"),
        (BASE + "[1, 2]: x\n", "s.yaml:5: not valid YAML: a key must be a plain value"),
        (BASE.replace("- text: hi", "- tool_use: [{name: Bash, id: {a: 1}}]"), "id must be str"),
        (BASE + "title: {en: [1]}\n", "scenario.title must map strings to strings"),
    ],
)
def test_bad_scenarios_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    path = _scenario(tmp_path, text)
    code, _, err = _run(capsys, ["record", "--scenario", str(path), "-o", str(tmp_path / "o")])
    _one_error(code, err, said)


def test_a_yaml_alias_bomb_fails_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario(tmp_path, BASE + _bomb() + "title: {en: *a8}\n")
    code, _, err = _run(capsys, ["record", "--scenario", str(path), "-o", str(tmp_path / "o")])
    _one_error(code, err, "refused: more than 64 aliases")


def test_few_aliases_that_expand_hugely_are_refused_too(tmp_path: Path) -> None:
    from tracer.files.yamlfile import load_yaml

    rows = ["a0: &a0 [" + ", ".join(["x"] * 60) + "]"]
    rows += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 6)}]" for n in range(1, 6)]
    path = _scenario(tmp_path, "\n".join(rows) + "\n")
    with pytest.raises(UserError, match="expands to more than 100,000 nodes"):
        load_yaml(path)


def test_bundled_scenarios_still_load() -> None:
    from tracer.chapter.scenario import load_scenario

    for path in sorted(SCENARIOS_DIR.glob("*.yaml")):
        assert load_scenario(path).responses


# -- imports -------------------------------------------------------------------------------------


def test_an_atomic_writer_leaves_nothing_when_it_fails(tmp_path: Path) -> None:
    from tracer.trace.events import Header, TurnStarted

    target = tmp_path / "out.trace.jsonl"
    header = Header(created="2026-01-01T00:00:00Z", source={"kind": "import"}, tracer_version="x")
    with pytest.raises(RuntimeError), TraceWriter(target, header, atomic=True) as writer:
        writer(TurnStarted(turn=1, message_count=1))
        assert not target.exists()  # the events go to a hidden file until the end
        raise RuntimeError("the importer broke")
    assert list(tmp_path.iterdir()) == []
    with TraceWriter(target, header, atomic=True) as writer:
        writer(TurnStarted(turn=1, message_count=1))
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert len(target.read_text(encoding="utf-8").splitlines()) == 2


def test_an_import_that_fails_leaves_no_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "probes.jsonl"
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}
    log.write_text(json.dumps({"request": {"body": body}, "response": {}}) + "\n", "utf-8")
    out = tmp_path / "out.trace.jsonl"
    code, _, err = _run(capsys, ["import", "api-log", str(log), "-o", str(out)])
    _one_error(code, err, "no main-loop request")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probes.jsonl"]


def test_transcript_records_of_the_wrong_shape_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "message": {"role": "user", "content": "hello"},
    }
    answer = {
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": "hi"}],
        },
    }
    bad = dict(answer, uuid="a2", message=dict(answer["message"], content=[5]))  # type: ignore[arg-type]
    log = tmp_path / "s.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in (good, answer, bad)), "utf-8")
    out = tmp_path / "out.trace.jsonl"
    code, _, err = _run(capsys, ["import", "claude-code", str(log), "-o", str(out)])
    assert code == 0, err
    # The record is mended, not dropped: the block that is not an object is left out, and counted.
    assert "skipped: 1 content blocks that are not objects with a type" in err
    assert validate_trace(out)[1] == []


def test_listing_sessions_skips_a_fifo_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "projects" / "-work"
    project.mkdir(parents=True)
    os.mkfifo(project / "stuck.jsonl")
    (project / "gone.jsonl").symlink_to(tmp_path / "nowhere")
    record = {"type": "user", "message": {"role": "user", "content": "list me"}}
    (project / "real.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    code, out, err = _run(capsys, ["import", "claude-code", "--list"])
    assert code == 0, err
    # Listed without reading the FIFO (it holds nothing yet, so it is not a session yet).
    assert "list me" in out and "stuck.jsonl" not in out and "gone.jsonl" not in out


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


def test_a_control_character_in_a_scenario_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _scenario(tmp_path, BASE + "title: {en: a\x01b}\n")
    code, _, err = _run(capsys, ["record", "--scenario", str(path)])
    _one_error(code, err, "s.yaml:5: character U+0001 at column 14 is not allowed in YAML")


def test_batch_commands_pause_the_cycle_collector_and_give_it_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    import tracer.cli.show

    seen: list[bool] = []
    real = tracer.cli.show.show_lines

    def spy(reader: Any) -> Any:
        seen.append(gc.isenabled())
        return real(reader)

    monkeypatch.setattr(tracer.cli.show, "show_lines", spy)
    assert gc.isenabled()
    code, _, _ = _run(capsys, ["show", str(MAIN)])
    assert code == 0 and seen == [False] and gc.isenabled()
    code, _, _ = _run(capsys, ["show", str(MAIN) + ".missing"])
    assert code == 2 and gc.isenabled()  # given back on the error path too


def test_from_the_console_script_a_batch_command_never_gets_the_collector_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The console script pauses the collector before it imports anything and ends the process
    # when main returns: a batch command keeps it paused through start-up, its work and its
    # end (each time it came back it walked all that was made meanwhile, freeing nothing),
    # while the replay, which runs for as long as the user wants, gets it back.
    import gc

    import tracer.cli.show
    import tracer.replay.command

    seen: list[tuple[str, bool]] = []
    show = tracer.cli.show.show_lines

    def show_spy(reader: Any) -> Any:
        seen.append(("show", gc.isenabled()))
        return show(reader)

    def replay_spy(args: Any) -> int:
        seen.append(("replay", gc.isenabled()))
        return 0

    collections: list[int] = []
    monkeypatch.setattr(tracer.cli.show, "show_lines", show_spy)
    monkeypatch.setattr(tracer.replay.command, "run", replay_spy)
    monkeypatch.setattr(gc, "callbacks", [lambda phase, info: collections.append(1)])
    try:
        gc.disable()
        assert main(["show", str(MAIN)], ends_process=True) == 0
        assert seen == [("show", False)] and not gc.isenabled() and not collections
        gc.disable()
        assert main(["replay", str(MAIN)], ends_process=True) == 0
        assert seen[1:] == [("replay", True)] and gc.isenabled()
    finally:
        gc.enable()
    capsys.readouterr()


# -- orjson behind loads(): the same values and the same errors as the stdlib alone -------------

STRICT_LINES = [
    b'{"a":1}',
    # More brackets than MAX_DEPTH but shallow (a long tool output): orjson's, depth walked.
    b'{"out":[' + b",".join([b'{"x":[1]}'] * 80) + b"]}",
    b'{"s":"' + b"[{" * 80 + b'"}',  # the brackets are inside a string
    b"[" * 64 + b"]" * 64,  # exactly as deep as allowed
    b"[" * 65 + b"]" * 65,  # one level too deep
    b'{"a":' * 64 + b"1" + b"}" * 64,
    b'{"a":' * 65 + b"1" + b"}" * 65,
    b'{"a":1,"b":2,"a":3}',  # duplicate keys: the last value, at the first key's place
    b"[18446744073709551615, -9223372036854775808]",  # the largest 64-bit integers
    b"[18446744073709551616]",  # one more: orjson would make it a float
    b"[-9223372036854775809, 123456789012345678901234567890]",
    # Floats as large as 64-bit integers, written as floats: a long line sends them on too.
    b"[9223372036854775808.0, -9223372036854775808.0, 1e19, -1.5e300, 9223372036854775807]",
    b'{"id": "1234567890123456789012"}',  # a long digit run in a string: read either way
    b"[1e400, -1e400, 1e-400]",  # the stdlib reads infinity; orjson refuses
    b"[NaN]",
    b"[Infinity]",
    b"[-Infinity]",
    b'["\\ud800"]',  # lone surrogates: high, low, reversed
    b'["\\udc00"]',
    b'["\\udc00\\ud800"]',
    b'["\\ud83d\\ude00"]',  # a valid pair: an emoji
    b"[" * 64 + b"]" * 64,
    b"[" * 65 + b"]" * 65,
    b"\xef\xbb\xbf{}",  # a byte-order mark
    b' {"padded": true} \r',
    b'{"tab":"a\tb"}',  # a raw control character in a string
    b'{"nul":"a\x00b"}',
    b'{"bad":"\xff"}',
    b'{"cut":"\xe4\xb8"}',
    b"[0.1, -0.0, 2.2250738585072011e-308, 5e-324, 1.7976931348623157e308, 1E+2, 0.1e1]",
    b'{"zh":"\xe4\xb8\xad\xe6\x96\x87","u":"\\u4e2d\\u2028"}',
    b"[1,]",
    b"",
    b"   ",
    b"42",
]


def _both(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    from tracer.files import untrusted

    def read() -> Any:
        try:
            value = loads(raw, "f.jsonl", 3)
        except UserError as exc:
            return ("error", str(exc))
        return ("value", repr(value), [type(v).__name__ for v in _leaves(value)])

    fast = read()
    monkeypatch.setattr(untrusted, "_orjson", None)
    plain = read()
    monkeypatch.undo()
    return fast, plain


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


@pytest.mark.parametrize("raw", STRICT_LINES, ids=range(len(STRICT_LINES)))
def test_orjson_reads_every_line_as_the_stdlib_does(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracer.files import untrusted

    assert untrusted._orjson is not None  # the wheel is installed here; else this proves nothing
    fast, plain = _both(raw, monkeypatch)
    assert fast == plain


def _long(raw: bytes) -> bytes:
    """``raw`` as a value in a line longer than SHORT_LINE: its parsed value is walked."""
    from tracer.files.untrusted import SHORT_LINE

    return b'{"pad":"' + b"x" * SHORT_LINE + b'","v":' + raw + b"}"


@pytest.mark.parametrize("raw", STRICT_LINES, ids=range(len(STRICT_LINES)))
def test_orjson_reads_every_long_line_as_the_stdlib_does(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long line is checked on its parsed value, not its text: the same values, the same
    errors."""
    fast, plain = _both(_long(raw), monkeypatch)
    assert fast == plain


def test_a_long_line_is_walked_and_a_short_one_searched() -> None:
    from tracer.files.untrusted import MAX_DEPTH, MISS, SHORT_LINE, quick_loads

    shallow = b'{"out":[' + b",".join([b'{"x":[1]}'] * 80) + b"]}"  # many brackets, not deep
    deep = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    for raw in (shallow, deep, b"[123456789012345678901]", b"[1e19]", b'"x"', b"1.5"):
        assert len(raw) <= SHORT_LINE < len(_long(raw))
    assert quick_loads(shallow) is not MISS and quick_loads(_long(shallow)) is not MISS
    assert quick_loads(deep) is MISS and quick_loads(_long(deep)) is MISS
    # Objects open containers too: a short line of nested objects, or of both kinds, is walked.
    objects = b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)
    mixed = b'[{"a":' * (MAX_DEPTH // 2 + 1) + b"1" + b"}]" * (MAX_DEPTH // 2 + 1)
    for nested in (objects, mixed):
        assert len(nested) <= SHORT_LINE
        assert quick_loads(nested) is MISS
    # The walk's bound, inside a long line (which adds a level): empty innermost containers
    # count, as the stdlib's reading counts them.
    for inner in (b"[]", b"{}", b'["s"]'):
        for levels, refused in ((MAX_DEPTH - 2, False), (MAX_DEPTH - 1, True)):
            raw = _long(b"[" * levels + inner + b"]" * levels)
            assert (quick_loads(raw) is MISS) is refused
    # A long integer: by its 19 digits in a short line, by the float orjson made in a long one.
    assert quick_loads(b"[123456789012345678901]") is MISS
    assert quick_loads(_long(b"[123456789012345678901]")) is MISS
    assert quick_loads(b"[1e19]") == [1e19] and quick_loads(_long(b"[1e19]")) is MISS
    assert quick_loads(_long(b"[18446744073709551615]"))["v"] == [2**64 - 1]  # still 64 bits
    assert quick_loads(b'"x"') == "x" and quick_loads(b"1.5") == 1.5  # not containers


def _array(items: list[bytes]) -> bytes:
    return b"[" + b",".join(items) + b"]"


def test_a_line_of_many_small_values_is_checked_as_closely_as_a_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long level of a walk is first sorted by type in C (_worth_a_look): plain values are
    passed over, of floats only the extremes compared, containers opened one by one. Every
    kind of long level still gets the answer the stdlib's reading gives."""
    from tracer.files.untrusted import _MANY, MAX_DEPTH, MISS, SHORT_LINE, quick_loads

    n = 10 * _MANY
    ints = [b"%d" % (i % 1000 - 500) for i in range(n)]
    floats = [b"%d.5" % (i - n) for i in range(n)]
    plain = [b"true", b"false", b"null", b'"s"', b"7"] * _MANY
    dicts = [b'{"a":%d,"b":"x","c":[1,null]}' % i for i in range(n)]

    def deep(levels: int) -> bytes:  # its innermost list at depth levels + 1 in an array
        return b"[" * levels + b"]" * levels

    near = 2**64 - 1  # the largest integer orjson reads as an integer; 2**64 it makes a float
    lines: dict[bytes, bool] = {  # line: whether quick_loads leaves it to the careful reading
        _array(ints): False,
        _array([*ints, b"%d" % near]): False,
        _array([*ints, b"%d" % (near + 1)]): True,  # a float orjson made of an integer
        _array(floats): False,
        _array([*floats[:9], b"-9223372036854775809", *floats[9:]]): True,  # the smallest
        _array([*floats, b"9223372036854775808.0"]): True,  # as large, written as a float
        _array([*plain, *floats]): False,  # mixed: the floats picked out
        _array([*plain, b"1e19", *floats]): True,
        _array(plain): False,  # booleans, nulls, strings and integers: nothing to check
        _array(dicts): False,  # opens with a container: walked as it is
        _array([*dicts, b'{"a":1e19}']): True,
        _array([*dicts, b'{"a":%s}' % deep(MAX_DEPTH - 2)]): False,
        _array([*dicts, b'{"a":%s}' % deep(MAX_DEPTH - 1)]): True,
        _array([*ints, deep(MAX_DEPTH - 1)]): False,  # a container after plain values
        _array([*ints, deep(MAX_DEPTH)]): True,
        _array([deep(MAX_DEPTH), *ints]): True,  # and first
        _array([*ints, b'{"x":' + _array([*ints, b"2e19"]) + b"}"]): True,  # a level down
    }
    for raw, refused in lines.items():
        assert len(raw) > SHORT_LINE  # the value is walked, its text never searched
        assert (quick_loads(raw) is MISS) is refused, raw[-80:]
        fast, plain_reading = _both(raw, monkeypatch)
        assert fast == plain_reading


def test_random_numbers_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import struct

    from tracer.files import untrusted

    rng = random.Random(18)
    numbers = [repr(struct.unpack("d", rng.randbytes(8))[0]) for _ in range(2000)]
    numbers = [n for n in numbers if n not in ("nan", "inf", "-inf")]
    # A run of 19 digits (0.0016413371262041813) sends a short line the stdlib's way; a long
    # line is orjson's unless it holds a float as large as a 64-bit integer.
    small = [n for n in numbers if abs(float(n)) < 2**63]
    assert any(re.search(r"[0-9]{19}", n) for n in small)
    floats = ("[" + ",".join(small) + "]").encode()
    assert len(floats) > untrusted.SHORT_LINE
    assert untrusted.quick_loads(floats) is not untrusted.MISS  # orjson reads this one
    ints = [str(rng.randrange(-(2**70), 2**70)) for _ in range(500)]
    lines = [
        floats,
        ("[" + ",".join(numbers) + "]").encode(),
        ("[" + ",".join(ints) + "]").encode(),
    ]
    for values in (numbers, ints):  # and short ones
        lines += [("[" + ",".join(values[i : i + 20]) + "]").encode() for i in range(0, 500, 20)]
    for raw in lines:
        fast, plain = _both(raw, monkeypatch)
        assert fast == plain


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
