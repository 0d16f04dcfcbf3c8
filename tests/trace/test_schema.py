"""The committed JSON Schema is what the code generates, and recordings satisfy it.

Checked twice: with tracer's own small validator (``tracer validate``) and with the reference
``jsonschema`` package, so the schema is real JSON Schema and not just something our checker
accepts.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.event_schema import SCHEMA_PATH, load_schema
from tracer.trace.events import KNOWN
from tracer.trace.schema import validate_trace
from tracer.trace.schema_build import build_schema

RECORDINGS = sorted(RECORDINGS_DIR.rglob("*.trace.jsonl"))


def test_committed_schema_equals_the_generated_one() -> None:
    assert load_schema() == build_schema(), (
        f"{SCHEMA_PATH} is stale: regenerate it from tracer.trace.schema_build.build_schema()"
    )


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema())
    assert set(load_schema()["$defs"]) == {cls.kind for cls in KNOWN} | {"header"}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@functools.cache
def _validators() -> tuple[Any, Any, dict[str, Any]]:
    """The schema checked once, and its validators built once: whole, header, one per kind.

    ``jsonschema.validate`` checks the schema itself on every call, and a validator compiles its
    schema lazily on first use; building them per line made this file most of the suite's time.
    """
    schema = load_schema()
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    kinds = {
        kind: cls({**definition, "$defs": schema["$defs"]})
        for kind, definition in schema["$defs"].items()
        if kind != "header"
    }
    return cls(schema), cls(schema["$defs"]["header"]), kinds


def _check_with_jsonschema(path: Path) -> None:
    whole, header, kinds = _validators()
    lines = _lines(path)
    header.validate(lines[0])
    for number, data in enumerate(lines[1:], start=2):
        # Each line must match its own kind's definition, not merely any of them.
        errors = list(kinds[data["kind"]].iter_errors(data))
        assert not errors, f"{path}:{number}: {errors[0].message}"
        whole.validate(data)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_bundled_recordings_are_valid(path: Path) -> None:
    count, problems, _ = validate_trace(path)
    assert problems == [] and count > 0
    _check_with_jsonschema(path)


def test_a_fresh_recording_is_valid(main_walk: Any) -> None:
    count, problems, notes = validate_trace(main_walk.path)
    assert problems == [] and notes == [] and count == len(main_walk.events)
    _check_with_jsonschema(main_walk.path)


def test_validate_command(main_walk: Any, tracer_cli: Any, tmp_path: Path) -> None:
    ok = tracer_cli("validate", str(main_walk.path))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == f"{main_walk.path}: valid ({len(main_walk.events)} events)"

    lines = main_walk.path.read_text(encoding="utf-8").splitlines()
    broken_at = next(i for i, line in enumerate(lines) if '"kind":"mapping"' in line)
    data = json.loads(lines[broken_at])
    data["content_length"] = "long"
    del data["tool"]
    lines[broken_at] = json.dumps(data)
    broken = tmp_path / "broken.trace.jsonl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bad = tracer_cli("validate", str(broken))
    assert bad.returncode == 1
    problems = bad.stdout.splitlines()
    where = f"{broken}:{broken_at + 1}: mapping: "
    assert f"{where}missing 'tool'" in problems
    assert f"{where}content_length must be integer, not str" in problems
    assert "Traceback" not in bad.stderr


def test_validate_notes_unknown_kinds_without_failing(main_walk: Any, tmp_path: Path) -> None:
    path = tmp_path / "extra.trace.jsonl"
    path.write_text(
        main_walk.path.read_text(encoding="utf-8")
        + json.dumps({"kind": "from_the_future", "seq": 999, "turn": 4})
        + "\n",
        encoding="utf-8",
    )
    _, problems, notes = validate_trace(path)
    assert problems == []
    assert notes == ["skipped 1 event(s) of unknown kind 'from_the_future'"]
