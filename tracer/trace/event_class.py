"""Event classes made without compiling: ``@dataclass(frozen=True, slots=True, kw_only=True)``
for a fraction of the cost of creating the class.

:func:`frozen_event` makes an event class as :mod:`tracer.model.record_class` makes the lean
records: the fields collected as ``dataclasses`` collects them, the class made slotted, nothing
compiled; :func:`tracer.trace.event_code.install` gives it ``__init__`` and ``to_dict``, the two
methods whose speed counts, compiled ahead of time; ``__eq__``, ``__hash__`` and ``__repr__``
are the record module's closures, and assigning or deleting a field raises
``FrozenInstanceError``. To ``dataclasses.fields``, ``replace``, ``is_dataclass`` and a subclass
made by ``@dataclass``, the class is the frozen dataclass it was. :func:`lean_dataclass` is
re-exported for the trace's and the importer's own records.
"""

from __future__ import annotations

import dataclasses

from tracer.model.record_class import _compare, _getter, _make, _signature, lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no import needs it
    from typing import Any, TypeVar

    _C = TypeVar("_C", bound=type)

__all__ = ["frozen_event", "lean_dataclass"]


def frozen_event(cls: _C) -> _C:
    """A frozen, slotted, keyword-only dataclass made of ``cls`` without compiling anything; it
    has no ``__init__`` until :func:`tracer.trace.event_code.install` gives it one."""
    if not cls.__doc__:  # as dataclasses words it: with no __init__ yet, object's signature
        cls.__doc__ = cls.__name__ + _signature(cls)
    made, explicit_hash = _make(cls, frozen=True, kw_only=True, slots=True)
    _compare(made, True, explicit_hash)
    names = tuple(f.name for f in dataclasses.fields(made))
    values = _getter(names)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self: Any, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self: Any) -> list[Any]:  # pickle and copy, as a frozen slotted dataclass
        return list(values(self))

    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)

    for method in (__setattr__, __delattr__, __getstate__, __setstate__):
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        setattr(made, method.__name__, method)
    return made  # type: ignore[no-any-return]
