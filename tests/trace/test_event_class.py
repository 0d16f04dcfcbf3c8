"""A class made by ``lean_dataclass`` behaves as the one ``@dataclass`` makes: the same fields,
parameters, equality, hash, repr and frozenness, with fewer methods compiled."""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, dataclass, field, fields

import pytest

from tracer.trace.event_class import lean_dataclass


def _pair(**params: bool) -> tuple[type, type]:
    """The same class body made both ways."""

    def body() -> type:
        class Point:
            x: int
            y: list[int] = field(default_factory=list)
            note: str = field(default="", compare=False, repr=False)

        return Point

    return dataclass(**params)(body()), lean_dataclass(**params)(body())


@pytest.mark.parametrize("params", [{}, {"slots": True}, {"frozen": True, "slots": True}])
def test_a_lean_dataclass_is_the_dataclass(params: dict[str, bool]) -> None:
    real, lean = _pair(**params)
    assert [(f.name, f.default, f.compare) for f in dataclasses.fields(lean)] == [
        (f.name, f.default, f.compare) for f in dataclasses.fields(real)
    ]
    assert lean.__dataclass_params__.__repr__() == real.__dataclass_params__.__repr__()
    assert repr(lean(1, [2], "n")) == repr(real(1, [2], "n")).replace(
        real.__qualname__, lean.__qualname__
    )
    assert lean(1, [2], "a") == lean(1, [2], "b") and lean(1) != lean(2) and lean(1) != real(1)
    assert dataclasses.replace(lean(1), x=3).x == 3
    if params.get("frozen"):
        assert hash(lean(1, (), "a")) == hash(lean(1, (), "b")) == hash(real(1, ()))
        with pytest.raises(dataclasses.FrozenInstanceError):
            lean(1).x = 2  # type: ignore[misc]
    else:
        assert lean.__hash__ is None and real.__hash__ is None  # unhashable, as eq makes it


def test_a_method_the_class_writes_itself_is_kept() -> None:
    @lean_dataclass(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Named("a")) == "<a>" and Named("a") == Named("a")


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("kw_only", [False, True])
@pytest.mark.parametrize("own", ["eq", "hash", "none", "neither"])
def test_a_record_is_hashable_exactly_when_dataclasses_makes_it_so(
    frozen: bool, kw_only: bool, own: str
) -> None:
    def body() -> type:
        class Pair:
            a: int
            b: int = 0
            if own == "eq":

                def __eq__(self, other: object) -> bool:
                    return True

            elif own == "hash":

                def __hash__(self) -> int:
                    return 7

            elif own == "none":
                __hash__ = None  # type: ignore[assignment]

        return Pair

    real = dataclass(frozen=frozen, kw_only=kw_only)(body())
    lean = lean_dataclass(frozen=frozen, kw_only=kw_only)(body())
    assert (lean.__hash__ is None) == (real.__hash__ is None)
    if real.__hash__ is not None:
        assert hash(lean(a=1)) == hash(real(a=1))
    assert (lean(a=1) == lean(a=2)) == (real(a=1) == real(a=2))


@pytest.mark.parametrize("params", [{}, {"slots": True}, {"frozen": True, "slots": True}])
def test_an_undocumented_record_gets_the_docstring_dataclasses_writes(
    params: dict[str, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    real, _ = _pair(**params)
    # dataclasses words the docstring from the class's signature; with no __init__ written
    # yet that would be object's, read by parsing its text (tokenize's expressions compiled on
    # the first use, 20M instructions of every import): the lean way never asks for it.
    import inspect

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a text signature was parsed")

    monkeypatch.setattr(inspect, "_signature_fromstr", refused)
    _, lean = _pair(**params)
    assert lean.__doc__ == real.__doc__.replace(real.__qualname__, lean.__qualname__)
    assert lean.__doc__.startswith("Point(x: 'int', y: 'list[int]' = <factory>")


@pytest.mark.parametrize("params", [{}, {"slots": True}, {"frozen": True, "slots": True}])
def test_new_makes_the_record_calling_the_class_makes(params: dict[str, bool]) -> None:
    def body() -> type:
        class Point:
            x: int
            y: list[int] = field(default_factory=list)
            note: str = ""

        return Point

    point = lean_dataclass(new=True, **params)(body())
    made = point.new(x=1, note="n")  # type: ignore[attr-defined]
    assert type(made) is point and made == point(1, [], "n")
    assert repr(made) == repr(point(1, note="n"))
    assert point.new(x=1).y is not point.new(x=1).y  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        point.new(1)  # type: ignore[attr-defined]  # keyword-only: a new field cannot shift
    if params.get("frozen"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.x = 2

    class Labelled(point):  # type: ignore[valid-type,misc]  # a subclass's own __init__ runs
        def __init__(self, **fields: object) -> None:
            super().__init__(**fields)
            object.__setattr__(self, "note", "labelled")

    assert Labelled.new(x=1).note == "labelled"  # type: ignore[attr-defined]
    assert not hasattr(lean_dataclass(**params)(body()), "new")  # only asked for


# Every class tracer makes with frozen_event or lean_dataclass, made again from its own source
# by dataclasses (with typing's names in its module, so that it can tell a ClassVar): what
# tracer's collector leaves on the class must be what dataclasses leaves.


def _records() -> list[type]:
    from tracer.importers.claude_code.census import Census
    from tracer.importers.claude_code.counts import Block, Tally
    from tracer.importers.claude_code.dag import ActivePath
    from tracer.importers.claude_code.transcript import Boundary, Response, Transcript
    from tracer.importers.output import ImportReport
    from tracer.model.api_messages import ApiMessage
    from tracer.model.internal_messages import Message
    from tracer.trace.event_base import Header
    from tracer.trace.events import UnknownEvent
    from tracer.trace.message_record import ResultRefs
    from tracer.trace.requests import RebuiltRequest
    from tracer.trace.tokens import Account, Row, Tokens

    events = [Header, UnknownEvent, Tokens, Row, Account, RebuiltRequest, ResultRefs]
    events += [Message, ApiMessage]
    return [*events, ImportReport, ActivePath, Tally, Block, Census, Boundary, Response, Transcript]


def _events() -> list[type]:
    from tracer.trace.events import KNOWN, Event

    return [Event, *KNOWN]


def _by_dataclasses(cls: type, monkeypatch: pytest.MonkeyPatch, made: dict[str, type]) -> type:
    """``cls`` made from its source by ``dataclasses``, with the parameters its decorator
    gives, in a copy of its module where ``typing``'s names are bound (as they are not at run
    time); its dataclass bases are the ones made here before it."""
    import inspect
    import sys
    import types
    import typing

    module = sys.modules[cls.__module__]
    name = "dataclass_world_" + cls.__module__.replace(".", "_")
    world = types.ModuleType(name)
    world.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    world.__dict__.update({n: getattr(typing, n) for n in ("Any", "ClassVar", "Literal")})
    world.__dict__.update(made)
    monkeypatch.setitem(sys.modules, name, world)
    source = inspect.getsource(cls)
    decorator, _, body = source.partition("\nclass ")
    params = (
        {"frozen": True, "slots": True, "kw_only": True}
        if decorator.strip() == "@frozen_event"
        else eval(f"dict{decorator.strip().removeprefix('@lean_dataclass') or '()'}")
    )
    params.pop("new", None)  # lean_dataclass's own: a faster way to make the same record
    exec(compile("class " + body, module.__file__ or "", "exec"), world.__dict__)
    real = dataclasses.dataclass(**params)(world.__dict__[cls.__name__])
    made[cls.__name__] = real
    return real


def _made(factory: object) -> object:
    """A default factory as compared: a lambda in the source is a new function each time it is
    run, so what it makes; any other factory (``list``, a module's function) itself."""
    return factory() if getattr(factory, "__name__", "") == "<lambda>" else factory  # type: ignore[operator]


def _fields(cls: type) -> list[tuple[object, ...]]:
    kept = ("name", "type", "default", "init", "repr", "hash", "compare", "kw_only")
    return [
        (*(getattr(f, n) for n in (*kept, "_field_type")), _made(f.default_factory), f.metadata)
        for f in cls.__dataclass_fields__.values()  # type: ignore[attr-defined]
    ]


def _asdict(record: object) -> object:
    """``dataclasses.asdict``, or its complaint (it cannot copy a defaultdict)."""
    try:
        return dataclasses.asdict(record)  # type: ignore[call-overload]
    except TypeError as error:
        return str(error)


def _sample(cls: type) -> dict[str, object]:
    """Keyword arguments for a record of ``cls``: a value for each field without a plain default
    (a default factory may read the clock: ``Message``'s timestamp)."""
    return {f.name: f"<{f.name}>" for f in dataclasses.fields(cls) if f.default is MISSING}


def test_every_record_and_event_is_the_class_dataclasses_makes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import copy
    import pickle

    made: dict[str, type] = {}
    events = _events()
    classes = events + _records()
    assert len(classes) == 38
    for cls in classes:
        real = _by_dataclasses(cls, monkeypatch, made)
        assert _fields(cls) == _fields(real), cls
        if cls in events:  # kind and stage: class variables, left out of the fields
            classvars = {n for n, f in cls.__dataclass_fields__.items() if f not in fields(cls)}  # type: ignore[attr-defined]
            assert classvars == {"kind", "stage"}, cls
            assert (cls.kind, cls.stage) == (real.kind, real.stage), cls  # type: ignore[attr-defined]
        assert repr(cls.__dataclass_params__) == repr(real.__dataclass_params__), cls  # type: ignore[attr-defined]
        assert cls.__match_args__ == real.__match_args__, cls  # type: ignore[attr-defined]
        assert cls.__dict__.get("__slots__") == real.__dict__.get("__slots__"), cls
        assert (cls.__hash__ is None) == (real.__hash__ is None), cls
        assert cls.__doc__ == real.__doc__, cls
        one, other = cls(**_sample(cls)), real(**_sample(real))
        assert repr(one) == repr(other), cls
        assert _asdict(one) == _asdict(other), cls
        assert one == cls(**_sample(cls)) and (one == other) is False, cls
        if real.__hash__ is not None:
            assert hash(one) == hash(other), cls
        field = dataclasses.fields(cls)[-1].name
        assert getattr(dataclasses.replace(one, **{field: "x"}), field) == "x", cls
        assert copy.copy(one) == one == copy.deepcopy(one), cls
        if real.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            assert pickle.loads(pickle.dumps(one)) == one, cls
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(one, field, 1)
