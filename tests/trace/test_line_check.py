"""The readers' checks asked while a trace is written (:mod:`tracer.trace.line_check`) say what
``tracer validate`` says of the finished file; the quick soundness test of each line kind
(:func:`tracer.trace.sound_code.compile_sound`) agrees with the worded checks."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace import event_schema, event_sound
from tracer.trace.checked_code import compile_checked, sound_module
from tracer.trace.event_code import event_plan
from tracer.trace.event_schema import SCHEMA_PATH, compile_schema, sound_for
from tracer.trace.events import KNOWN, ToolFinished
from tracer.trace.line_check import LineCheck, checked_for
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace
from tracer.trace.schema_build import build_schema
from tracer.trace.sound_code import compile_sound

RECORDING = sorted(RECORDINGS_DIR.rglob("*.trace.jsonl"))[0]
ODD: list[Any] = [None, 7, -1, 1.5, True, "x", [], [7], {}, {"type": 3}, [["u", -1]]]


def _objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]


def _damaged(rng: random.Random, obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    key = rng.choice(sorted(out))
    if rng.random() < 0.3:
        del out[key]
    else:
        out[key] = rng.choice(ODD)
    return out


def test_the_quick_test_agrees_with_the_worded_checks_on_damaged_lines() -> None:
    defs = build_schema()["$defs"]
    sound = {kind: compile_sound(sub, kind) for kind, sub in defs.items()}
    ahead = {kind: sound_for(kind, sub) for kind, sub in defs.items()}  # event_sound's
    worded = {kind: compile_schema(sub) for kind, sub in defs.items()}
    lines = _objects(RECORDING)
    rng = random.Random(34)
    seen = {True: 0, False: 0}
    picked = [rng.choice(lines) for _ in range(2000)]
    for original, obj in [*((o, o) for o in lines), *((o, _damaged(rng, o)) for o in picked)]:
        kind = original.get("kind", "header")  # the check of the kind it was, damaged or not
        said = sound[kind](obj)
        assert said == (worded[kind](obj, "") == []) == ahead[kind](obj), (kind, obj)
        seen[said] += 1
    assert seen[True] > 100 and seen[False] > 500  # both answers, many times


def test_an_object_built_and_tested_at_once_is_to_dicts_and_gets_the_quick_tests_answer() -> None:
    # LineCheck.object_of builds each line's object with the class's checked_dict, which tests
    # each value as it puts it in: the same object as to_dict, the same answer as the kind's
    # quick test of it, on sound events and on events with a field of the wrong type or None.
    defs = build_schema()["$defs"]
    events = list(TraceReader(RECORDING))
    assert {type(e) for e in events} <= set(KNOWN)
    rng = random.Random(12)
    damaged = []
    for event in (rng.choice(events) for _ in range(2000)):
        event = copy.copy(event)
        field = rng.choice(event_plan(type(event))[2])[0]  # type: ignore[index]
        object.__setattr__(event, field, rng.choice(ODD))  # past the frozen guard
        damaged.append(event)
    seen = {True: 0, False: 0}
    for event in [*events, *damaged]:
        cls, plan = type(event), event_plan(type(event))
        assert plan is not None
        data = event.to_dict()
        sound = bool(sound_for(cls.kind, defs[cls.kind])(data))
        for build in (
            checked_for(cls.__name__, plan, defs[cls.kind]),
            compile_checked(plan, defs[cls.kind], cls.__name__),
        ):
            built, said = build(event)
            # The same keys in the same order: the line written is the same bytes.
            assert (list(built.items()), said) == (list(data.items()), sound), data
        seen[sound] += 1
    assert seen[True] > 300 and seen[False] > 300  # both answers, many times


def test_the_quick_tests_compiled_ahead_of_time_are_those_the_schema_gives_now() -> None:
    # After changing an event class (and schema.json): python -m tracer.cli.generate
    defs = build_schema()["$defs"]
    source = Path(SCHEMA_PATH).read_bytes()
    assert json.loads(source)["$defs"] == defs  # (test_schema.py keeps the file current)
    plans = {cls.__name__: event_plan(cls) for cls in KNOWN}
    written = sound_module(source, plans)  # type: ignore[arg-type]
    assert Path(event_sound.__file__).read_text(encoding="utf-8") == written
    assert source == event_sound.SCHEMA_JSON and tuple(defs) == event_sound.KINDS
    assert sound_for("message", defs["message"]).__code__.co_filename == event_sound.__file__
    changed = {**defs["message"], "required": ["kind"]}
    assert sound_for("message", changed).__code__.co_filename == "<string>"  # compiled now
    assert sound_for("message", changed)({"kind": "message"})


def _fresh_checks(monkeypatch: pytest.MonkeyPatch, schema_path: str) -> None:
    """The checks made anew, as a process reading ``schema_path`` makes them."""
    monkeypatch.setattr(event_schema, "SCHEMA_PATH", schema_path)
    for cached in (event_schema._fresh, event_schema._definitions):
        cached.cache_clear()
    monkeypatch.setattr(event_schema, "quick_checks", lambda: event_schema._Quick())
    monkeypatch.setattr(event_schema, "checks", lambda: event_schema._Checks())


def test_the_quick_tests_are_taken_unparsed_only_from_the_file_they_were_written_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The same file: the tests compiled ahead of time, schema.json never parsed.
    _fresh_checks(monkeypatch, SCHEMA_PATH)
    load_schema = event_schema.load_schema
    monkeypatch.setattr(event_schema, "load_schema", lambda: pytest.fail("schema.json parsed"))
    assert event_schema._fresh()
    message = event_schema.quick_checks()["message"]
    assert message.__code__.co_filename == event_sound.__file__
    assert "message" in event_schema.checks() and "nothing" not in event_schema.checks()
    sound = next(o for o in _objects(RECORDING) if o.get("kind") == "message")
    assert event_schema.checks()["message"](sound, "") == []
    monkeypatch.setattr(event_schema, "load_schema", load_schema)
    assert event_schema.checks()["message"]({"kind": "message"}, "") != []  # doubted: parsed
    monkeypatch.undo()
    # An edited file: each kind's schema compared, a changed one compiled from the file.
    edited = json.loads(Path(SCHEMA_PATH).read_bytes())
    edited["$defs"]["message"]["required"] = ["kind"]
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    _fresh_checks(monkeypatch, str(path))
    assert not event_schema._fresh()
    quick = event_schema.quick_checks()
    assert quick["message"].__code__.co_filename == "<string>"
    assert quick["message"]({"kind": "message"})
    assert quick["tool_run"].__code__.co_filename == event_sound.__file__
    assert event_schema.checks()["message"]({"kind": "message"}, "") == []
    with pytest.raises(KeyError):
        quick["nothing"]
    event_schema._fresh.cache_clear()
    event_schema._definitions.cache_clear()


def _check_file(path: Path) -> LineCheck:
    """Feed a written trace's header and events to a LineCheck, as the writer does."""
    check = LineCheck()
    objects = _objects(path)
    check.header(objects[0])
    for event, data in zip(TraceReader(path), objects[1:], strict=True):
        check(event, data)
    check.finish()
    return check


@pytest.mark.parametrize("path", sorted(RECORDINGS_DIR.rglob("*.trace.jsonl"))[:4], ids=str)
def test_a_sound_trace_passes(path: Path) -> None:
    assert validate_trace(path)[1] == []
    assert _check_file(path).problems == []


def test_what_validate_refuses_the_line_check_refuses_on_the_same_line(tmp_path: Path) -> None:
    # A tool_run whose output is left out: what to_dict did with a None output before it wrote
    # required fields always.
    check = LineCheck()
    objects = _objects(RECORDING)
    check.header(objects[0])
    events = list(TraceReader(RECORDING))
    run = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished))
    for i, (event, data) in enumerate(zip(events, objects[1:], strict=True)):
        if i == run:
            data = {k: v for k, v in data.items() if k != "output"}
        check(event, data)
    (problem,) = check.finish()
    damaged = tmp_path / "t.jsonl"
    objects[run + 1].pop("output")
    damaged.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    said = validate_trace(damaged)[1]
    assert problem == f"line {run + 2}: tool_run event: missing output"
    assert said[0].startswith(f"{damaged}:{run + 2}: tool_run")


def test_a_message_pointing_at_nothing_is_refused() -> None:
    check = LineCheck()
    objects = _objects(RECORDING)
    check.header(objects[0])
    events = list(TraceReader(RECORDING))
    at = next(i for i, o in enumerate(objects[1:]) if o.get("block_seq"))
    for i, (event, data) in enumerate(zip(events, objects[1:], strict=True)):
        if i == at:
            from dataclasses import replace

            event = replace(event, block_seq=event.seq)  # points at itself
        check(event, data)
    assert any("which is not an earlier mapping" in p for p in check.finish())
