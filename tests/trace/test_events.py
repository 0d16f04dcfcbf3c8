"""The event records: every kind has a stage or is a supporting record, and round-trips as JSON."""

from __future__ import annotations

import dataclasses

import pytest

from tracer.trace.events import (
    KINDS,
    KNOWN,
    STAGES,
    STATIONS,
    STEP_KINDS,
    DebugHook,
    ResultMapped,
    UnknownEvent,
    from_dict,
)


def test_the_four_stations_are_stage_values() -> None:
    assert set(STATIONS) == {"mapping", "wrapping", "appending", "resending"}
    assert set(STATIONS) <= set(STEP_KINDS.values())
    assert set(STEP_KINDS.values()) == set(STAGES)


def test_kinds_are_unique() -> None:
    assert len(KINDS) == len(KNOWN)


def test_to_dict_puts_kind_and_stage_first_and_drops_none() -> None:
    event = ResultMapped(
        seq=3,
        turn=1,
        tool_use_id="toolu_1",
        tool="Bash",
        block={"type": "tool_result", "content": "x", "tool_use_id": "toolu_1"},
        content_length=1,
        mapped_length=1,
    )
    data = event.to_dict()
    assert list(data)[:2] == ["kind", "stage"]
    assert data["kind"] == "mapping" and data["stage"] == "mapping"
    assert "persisted" not in data and "empty_replaced" not in data
    assert from_dict(data) == event


@pytest.mark.parametrize("cls", KNOWN, ids=lambda c: c.kind)
def test_required_fields_are_named_when_missing(cls: type) -> None:
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    if not required:
        pytest.skip("no required fields")
    with pytest.raises(ValueError) as err:
        from_dict({"kind": cls.kind, "seq": 1, "turn": 0})
    assert str(err.value) == f"{cls.kind} event: missing {', '.join(sorted(required))}"


def test_unknown_kinds_are_kept_not_fatal() -> None:
    event = from_dict({"kind": "from_the_future", "seq": 9, "turn": 2, "stage": "x", "extra": 1})
    assert isinstance(event, UnknownEvent)
    assert (event.kind, event.seq, event.turn, event.stage) == ("from_the_future", 9, 2, "x")
    assert event.raw["extra"] == 1


def test_unknown_fields_of_a_known_kind_are_ignored() -> None:
    event = from_dict(
        {
            "kind": "debug_hook",
            "seq": 1,
            "turn": 1,
            "hook": "loop_turn",
            "line": "[DEBUG] Loop turn: 1 messages: 3",
            "added_later": True,
        }
    )
    assert isinstance(event, DebugHook)


def test_an_event_needs_a_kind() -> None:
    with pytest.raises(ValueError, match="no 'kind'"):
        from_dict({"seq": 1})


def test_the_literal_aliases_are_the_tuples_of_their_values() -> None:
    # Stage and EndReason are spelled out for the type checker under TYPE_CHECKING and made on
    # first use at run time (typing is not imported by an import): all three must agree.
    import ast
    import typing
    from pathlib import Path

    from tracer.trace import event_base, events

    assert typing.get_args(events.Stage) == STAGES == event_base.STAGES
    assert typing.get_args(events.EndReason) == events.END_REASONS
    spelled = {}
    tree = ast.parse(Path(event_base.__file__).read_text(encoding="utf-8"))
    for block in tree.body:  # what `if TYPE_CHECKING:` names
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            for node in block.body:
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
                    name = node.targets[0].id  # type: ignore[attr-defined]
                    spelled[name] = tuple(ast.literal_eval(node.value.slice))
    assert spelled == {"Stage": STAGES, "EndReason": events.END_REASONS}
    with pytest.raises(AttributeError):
        events.Nothing  # noqa: B018


def test_the_trace_and_model_modules_an_import_runs_load_no_typing_pathlib_or_threading() -> None:
    # typing costs 12M instructions to import, pathlib (with urllib.parse and ipaddress) 10M,
    # threading 3M, base64 1M: the trace's and the model's modules an import uses name them only
    # for the type checker, or import them where they are used (base64 and urllib.parse only
    # for an environment that holds a secret).
    import subprocess
    import sys

    modules = [
        "tracer.model.api_messages",
        "tracer.trace.events",
        "tracer.trace.writer",
        "tracer.trace.line_check",
        "tracer.trace.requests",
        "tracer.trace.tokens",
        "tracer.trace.hooks",
        "tracer.trace.foreign",
        "tracer.trace.event_sound",
        "tracer.trace.event_schema",
        "tracer.trace.redact",
    ]
    heavy = "{'typing', 'pathlib', 'threading', 'base64', 'urllib.parse', 'ipaddress'}"
    code = (
        f"import sys, {', '.join(modules)}; "
        "tracer.trace.redact.Redactor.from_environ({'HOME': '/root', 'LANG': 'C.UTF-8'}); "
        f"print(sorted({heavy} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
