"""The written-out ``__init__`` and ``to_dict`` of the event classes do what ``dataclasses`` and a
plain loop over the fields would: every field stored, defaults kept, the instance still frozen."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from tracer.trace.event_code import compile_to_dict, fast_init
from tracer.trace.events import KNOWN, Event


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
    assert cls.__init__.__code__.co_filename == "<string>"  # the written-out one is installed
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
