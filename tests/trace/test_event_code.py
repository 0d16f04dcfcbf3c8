"""The written-out ``__init__`` and ``to_dict`` of the event classes do what ``dataclasses`` and a
plain loop over the fields would: every field stored, defaults kept, the instance still frozen."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tracer.trace import event_methods
from tracer.trace.event_class import frozen_event
from tracer.trace.event_code import compile_to_dict, fast_init, install, methods_module
from tracer.trace.events import KNOWN, Event, MessageRecorded


def _values(cls: type) -> dict[str, Any]:
    """A distinct value for every field (a tuple where the annotation allows one)."""
    out: dict[str, Any] = {}
    for number, f in enumerate(dataclasses.fields(cls)):
        scalar = any(f.type.startswith(s) for s in ("int", "str", "float", "bool", "Literal"))
        out[f.name] = f"{f.name}-{number}" if scalar else (f.name, number)
    return out


def _loop_to_dict(event: Any) -> dict[str, Any]:
    """What ``to_dict`` promises, computed the slow way."""
    out: dict[str, Any] = {"kind": event.kind}
    if event.stage:
        out["stage"] = event.stage
    for f in dataclasses.fields(event):
        v = getattr(event, f.name)
        if v is not None:
            out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


@pytest.mark.parametrize("cls", KNOWN, ids=lambda c: c.kind)
def test_every_field_is_stored_and_written(cls: type) -> None:
    # the written-out one, compiled ahead of time, is installed
    assert cls.__init__.__code__.co_filename == event_methods.__file__
    values = _values(cls)
    event = cls(**values)
    assert {name: getattr(event, name) for name in values} == values
    assert event.to_dict() == _loop_to_dict(event)
    assert dataclasses.replace(event, seq=7).seq == 7


@pytest.mark.parametrize("cls", KNOWN, ids=lambda c: c.kind)
def test_defaults_and_frozenness_are_kept(cls: type) -> None:
    fields = dataclasses.fields(cls)
    required = {f.name: "x" for f in fields if f.default is dataclasses.MISSING}
    event = cls(**required)
    for f in fields:
        if f.name not in required:
            assert getattr(event, f.name) == f.default
    assert event.to_dict() == _loop_to_dict(event)  # ``None`` fields left out
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seq = 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        cls(**required, nope=1)
    if required:
        with pytest.raises(TypeError, match="missing"):
            cls()


def test_a_class_with_a_default_factory_keeps_the_dataclass_init() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Listed(Event):
        kind = "listed"
        items: list[str] = field(default_factory=list)

    assert fast_init(Listed) is None
    assert Listed().items == [] and Listed().to_dict()["items"] == []
    assert compile_to_dict(Listed)(Listed(items=("a",))) == {
        "kind": "listed",
        "seq": 0,
        "turn": 0,
        "t": 0.0,
        "items": ["a"],
    }


def test_the_methods_compiled_ahead_of_time_are_those_the_classes_have_now() -> None:
    # After editing an event class: python -m tracer.trace.generate
    source = Path(event_methods.__file__).read_text(encoding="utf-8")
    assert source == methods_module((Event, *KNOWN))


def test_a_class_edited_since_gets_methods_compiled_for_its_fields() -> None:
    @frozen_event
    class MessageRecorded(Event):  # the name of a generated one, with other fields
        kind = "message"
        uuid: str
        extra: tuple[str, ...] | None = None

    install(MessageRecorded)
    assert MessageRecorded.__init__.__code__.co_filename == "<string>"
    event = MessageRecorded(uuid="u", extra=("a",))
    assert event.to_dict() == {
        "kind": "message",
        "seq": 0,
        "turn": 0,
        "t": 0.0,
        "uuid": "u",
        "extra": ["a"],
    }


def test_an_event_class_is_still_a_frozen_slotted_dataclass() -> None:
    one = MessageRecorded(seq=1, uuid="u", type="user", content="hi")
    two = MessageRecorded(seq=1, uuid="u", type="user", content="hi")
    assert one == two and hash(one) == hash(two) and one != dataclasses.replace(two, seq=2)
    assert (one == "u") is False
    assert repr(one).startswith("MessageRecorded(seq=1, turn=0, t=0.0, uuid='u', type='user', ")
    assert not hasattr(one, "__dict__") and MessageRecorded.__match_args__ == ()
    assert dataclasses.is_dataclass(one) and MessageRecorded.__dataclass_params__.frozen
    assert copy.copy(one) == one and pickle.loads(pickle.dumps(one)) == one
    with pytest.raises(dataclasses.FrozenInstanceError):
        del one.uuid
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.other = 1  # type: ignore[attr-defined]
