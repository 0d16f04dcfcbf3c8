"""The written-out ``__init__`` and ``to_dict`` of the event classes do what ``dataclasses`` and a
plain loop over the fields would: every field stored, defaults kept, the instance still frozen."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tracer.model.record_init import lean_key, lean_module
from tracer.trace import event_methods
from tracer.trace.event_class import frozen_event, lean_dataclass
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


@pytest.mark.parametrize("cls", KNOWN, ids=lambda c: c.kind)
def test_new_makes_what_calling_the_class_makes(cls: Any) -> None:
    # The importer builds its events with cls.new(...): the same instance, as frozen, the same
    # defaults, the same refusals of a missing or unknown field.
    assert cls.new.__code__.co_filename == event_methods.__file__
    values = _values(cls)
    made = cls.new(**values)
    assert type(made) is cls and made == cls(**values) and made.to_dict() == _loop_to_dict(made)
    required = {f.name: "x" for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}
    assert cls.new(**required) == cls(**required)
    # Filled in as a draft (event_code.draft_of), handed out as the class itself: as frozen.
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seq = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.seq
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        cls.new(**required, nope=1)
    if required:
        with pytest.raises(TypeError, match="missing"):
            cls.new()


def test_new_asked_of_a_subclass_makes_the_subclass() -> None:
    @frozen_event
    class Marked(MessageRecorded):
        kind = "message"

    made = Marked.new(uuid="u", type="user")
    assert type(made) is Marked and made == Marked(uuid="u", type="user")


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
    # After editing an event class: python -m tracer.cli.generate
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


# The lean records (tracer.model.record_class.lean_dataclass): their __init__ is written here
# rather than by dataclasses, and must be the one dataclasses would have written.


def _lean_and_dataclass(frozen: bool, slots: bool) -> tuple[type, type]:
    """One record made both ways: by lean_dataclass, and by dataclasses as it always was."""

    def body() -> type:
        class Record:
            name: str
            count: int = 3
            items: list[str] = field(default_factory=list)

        return Record

    return lean_dataclass(frozen=frozen, slots=slots)(body()), dataclass(
        frozen=frozen, slots=slots
    )(body())


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("slots", [False, True])
def test_a_lean_record_is_built_as_dataclasses_builds_it(frozen: bool, slots: bool) -> None:
    lean, plain = _lean_and_dataclass(frozen, slots)
    assert str(inspect.signature(lean)) == str(inspect.signature(plain))
    assert lean.__init__.__code__.co_filename == "<string>"  # a test's own: compiled now
    for args, kwargs in [(("a",), {}), (("a", 5, ["x"]), {}), ((), {"name": "b", "items": []})]:
        one, other = lean(*args, **kwargs), plain(*args, **kwargs)
        assert [getattr(one, f) for f in ("name", "count", "items")] == [
            getattr(other, f) for f in ("name", "count", "items")
        ]
        assert repr(one).removeprefix(lean.__qualname__) == repr(other).removeprefix(
            plain.__qualname__
        )
    assert lean("a").items is not lean("a").items  # the factory is called for each record
    assert lean("a") == lean("a") and lean("a") != lean("b")
    assert dataclasses.replace(lean("a"), count=9).count == 9
    for bad in [((), {}), (("a",), {"nope": 1}), (("a", 1, [], 4), {})]:
        with pytest.raises(TypeError):
            lean(*bad[0], **bad[1])
        with pytest.raises(TypeError):
            plain(*bad[0], **bad[1])
    record = lean("a", 1, ["x"])
    assert copy.copy(record) == record and copy.deepcopy(record) == record
    assert hasattr(record, "__dict__") is not slots
    if frozen:
        assert hash(lean("a", 1, ("x",))) == hash(plain("a", 1, ("x",)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.count = 2
        with pytest.raises(dataclasses.FrozenInstanceError):
            del record.count
        assert dataclasses.fields(lean) and lean.__dataclass_params__.frozen
    else:
        record.count = 2
        assert record.count == 2 and lean.__hash__ is None


def test_the_lean_records_of_an_import_have_their_init_compiled_ahead_of_time() -> None:
    # After editing such a record: python -m tracer.cli.generate
    from tracer.cli.generate import lean_records
    from tracer.model import lean_methods

    records = lean_records()
    assert len(records) >= 15
    assert Path(lean_methods.__file__).read_text(encoding="utf-8") == lean_module(records)
    from tracer.importers.claude_code.transcript import Transcript
    from tracer.model.api_messages import ApiMessage
    from tracer.model.internal_messages import Message
    from tracer.trace.tokens import Tokens

    for cls in (Transcript, Tokens, Message, ApiMessage):
        assert cls.__init__.__code__.co_filename == lean_methods.__file__
    for record in (Tokens(input=3, output=4),):
        assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record)


def test_a_lean_record_edited_since_gets_an_init_compiled_for_its_fields() -> None:
    from tracer.model import lean_methods
    from tracer.model.record_init import LEAN
    from tracer.trace import tokens  # registers the real one, whatever ran before in this worker

    assert tokens.Tokens.__init__.__code__.co_filename == lean_methods.__file__

    class Tokens:  # tracer.trace.tokens.Tokens, as if its fields had been edited since
        __module__ = "tracer.trace.tokens"
        __qualname__ = "Tokens"
        spent: int
        kept: int = 0

    key = lean_key(Tokens)
    assert key == "Tokens" and key in lean_methods.PLANS
    registered = LEAN[key]
    try:
        made = lean_dataclass(frozen=True, slots=True)(Tokens)
    finally:
        LEAN[key] = registered  # the module's own class is still the one generated
    assert made.__init__.__code__.co_filename == "<string>"
    record = made(5)
    assert (record.spent, record.kept) == (5, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.kept = 1


def test_lean_methods_written_in_another_form_are_compiled_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A generator whose factories changed their signature leaves lean_methods.py stale with
    # plans that still match: its factories must not be called with the new arguments.
    from tracer.model import lean_methods
    from tracer.model.record_init import LEAN

    monkeypatch.setattr(lean_methods, "FORM", 1, raising=False)

    from tracer.trace import tokens  # registers the real one, whatever ran before in this worker

    class Tokens:  # tracer.trace.tokens.Tokens's fields as they are: its plan still matches
        __module__ = "tracer.trace.tokens"
        __qualname__ = "Tokens"
        input: int = 0
        cache_read: int = 0
        cache_creation: int = 0
        output: int = 0
        estimated: bool = False

    key = lean_key(Tokens)
    assert lean_methods.PLANS[key] == LEAN[key]  # the generated factory was written for it
    assert tokens.Tokens.__init__.__code__.co_filename == lean_methods.__file__
    registered = LEAN.get(key)
    try:
        made = lean_dataclass(frozen=True, slots=True)(Tokens)
    finally:
        if registered is not None:
            LEAN[key] = registered
    assert made.__init__.__code__.co_filename == "<string>"
    assert (made(input=3).input, made(input=3).output) == (3, 0)
