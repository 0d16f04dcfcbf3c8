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
