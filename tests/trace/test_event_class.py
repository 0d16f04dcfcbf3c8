"""A class made by ``lean_dataclass`` behaves as the one ``@dataclass`` makes: the same fields,
parameters, equality, hash, repr and frozenness, with fewer methods compiled."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

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
