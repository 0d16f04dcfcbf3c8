"""Event classes made without compiling: ``@dataclass(frozen=True, slots=True, kw_only=True)``
for a fraction of the cost of creating the class.

:func:`frozen_event` makes an event class as :mod:`tracer.model.record_class` makes the lean
records: the fields collected as ``dataclasses`` collects them, the class made slotted, nothing
compiled; :func:`tracer.trace.event_code.install` gives it ``__init__`` and ``to_dict``, the two
methods whose speed counts, compiled ahead of time; ``__eq__``, ``__hash__`` and ``__repr__``
are the record module's closures, and so are its frozen guards (assigning or deleting a field
raises ``FrozenInstanceError``, as ``dataclasses`` words it). To ``dataclasses.fields``,
``replace``, ``is_dataclass`` and a subclass made by ``@dataclass``, the class is the frozen
dataclass it was. :func:`lean_dataclass` is
re-exported for the trace's and the importer's own records.
"""

from __future__ import annotations

from tracer.model.record_class import _make, _signature, dataclass_transform, lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no import needs it
    from typing import TypeVar

    _C = TypeVar("_C", bound=type)

__all__ = ["frozen_event", "lean_dataclass"]


@dataclass_transform(frozen_default=True, kw_only_default=True)
def frozen_event(cls: _C) -> _C:
    """A frozen, slotted, keyword-only dataclass made of ``cls`` without compiling anything; it
    has no ``__init__`` until :func:`tracer.trace.event_code.install` gives it one."""
    if not cls.__doc__:  # as dataclasses words it: with no __init__ yet, object's signature
        cls.__doc__ = cls.__name__ + _signature(cls)
    made, _ = _make(cls, frozen=True, kw_only=True, slots=True)
    return made
