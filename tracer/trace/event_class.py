"""Event classes made without compiling: ``@dataclass(frozen=True, slots=True, kw_only=True)``
for a fraction of the cost of creating the class.

``dataclasses`` writes each method of a frozen class as source and compiles it (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``): six compilations a
class, over a hundred at the start of every command that imports the events, and until this
module the largest part of ``tracer import``'s start-up (``bench/startup.py``). With
:func:`frozen_event` ``dataclasses`` only collects the fields and makes the class slotted
(nothing compiled); :func:`tracer.trace.event_code.install` gives it ``__init__`` and ``to_dict``,
the two methods whose speed counts, compiled ahead of time; the others are closures over the
field names that do what the generated ones do: ``__eq__`` compares the fields as a tuple (same
class only), ``__hash__`` hashes that tuple, ``__repr__`` is ``Name(field=value, ...)``,
assigning or deleting a field raises ``FrozenInstanceError``. To ``dataclasses.fields``,
``replace``, ``is_dataclass`` and a subclass made by ``@dataclass``, the class is the frozen
dataclass it was.

:func:`lean_dataclass` does the same for the other dataclasses every import creates (the
importer's own records, the messages, the token accounts): their ``__init__``, the one
``dataclasses`` would write, is compiled ahead of time too (:mod:`tracer.trace.lean_methods`,
:func:`tracer.trace.event_code.lean_init`); a frozen one's guards, the comparisons and
``__repr__`` are the same closures.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, overload

from tracer.trace.event_code import lean_init

_C = TypeVar("_C", bound=type)


@dataclasses.dataclass(init=False, repr=False, eq=False)
class _Thawed:
    """Its ``__dataclass_params__`` (not frozen) are what an event class's bases report while
    :func:`frozen_event` collects its fields."""


_THAWED = _Thawed.__dataclass_params__  # type: ignore[attr-defined]


def _written(frozen: bool) -> Any:
    """The ``__dataclass_params__`` a class made by ``@dataclass`` (or ``frozen=True``) reports
    (``__init__``, ``__repr__`` and ``__eq__`` written): what every class made here reports, as
    if ``dataclasses`` had written its methods. Made from :data:`_THAWED`'s, not by a dataclass
    of their own: that one would have its methods compiled (nine, for the two, at every
    start)."""
    params = copy.copy(_THAWED)
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    return params


_FROZEN, _PLAIN = _written(True), _written(False)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` as a tuple (``attrgetter`` gives one, in C, for two or more)."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda self: tuple(getattr(self, name) for name in names)


def _compare(made: Any, frozen: bool) -> None:
    """``__eq__``, ``__hash__`` and ``__repr__`` as ``dataclasses`` writes them for ``made``
    (``eq=True``, ``repr=True``), each left alone where the class defines its own: equal when of
    the same class with equal compared fields; hashable by those fields when frozen, unhashable
    when not; ``Name(field=value, ...)`` over the fields shown."""
    fields = dataclasses.fields(made)
    compared = _getter(tuple(f.name for f in fields if f.compare))
    hashed = _getter(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in fields if f.repr)
    values = _getter(shown)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    def __repr__(self: Any) -> str:
        pairs = zip(shown, values(self), strict=True)
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={v!r}' for n, v in pairs)})"

    own = made.__dict__
    for method in (__eq__, __repr__, *([__hash__] if frozen else [])):
        if method.__name__ not in own:
            method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
            setattr(made, method.__name__, method)
    if not frozen and "__hash__" not in own:
        made.__hash__ = None
    made.__dataclass_params__ = _FROZEN if frozen else _PLAIN


@overload
def lean_dataclass(cls: _C, /) -> _C: ...
@overload
def lean_dataclass(
    *, frozen: bool = False, slots: bool = False, kw_only: bool = False
) -> Callable[[_C], _C]: ...
def lean_dataclass(
    cls: Any = None, /, *, frozen: bool = False, slots: bool = False, kw_only: bool = False
) -> Any:
    """``@dataclass`` (with these parameters) for a class whose creation every import pays:
    ``dataclasses`` only collects the fields (and makes the class slotted), nothing compiled:
    :func:`tracer.trace.event_code.lean_init` gives it the ``__init__`` ``dataclasses`` would
    write, compiled ahead of time; :func:`_compare` gives it ``__eq__``, ``__hash__`` and
    ``__repr__``; a frozen class gets the guards :func:`_freeze` makes. (``dataclasses``
    compiled 32 such methods at every start of an import, 3 ms of its CPU.)"""

    def wrap(cls: _C) -> _C:
        if kw_only or any("__dataclass_fields__" in b.__dict__ for b in cls.__mro__[1:]):
            # Not a plain record: dataclasses writes its methods, as it always did.
            made: Any = dataclasses.dataclass(  # type: ignore[call-overload]
                cls, repr=False, eq=False, frozen=frozen, slots=slots, kw_only=kw_only
            )
            _compare(made, frozen)
            return made  # type: ignore[no-any-return]
        documented = bool(cls.__doc__)
        if not documented:
            # Without a docstring, dataclasses writes one from the class's signature, and with no
            # __init__ yet that is object's: inspect parses its text signature with tokenize,
            # whose expressions cost 20M instructions (3 ms) to compile. Written below instead.
            cls.__doc__ = cls.__name__
        made = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots)
        made.__init__ = lean_init(made, frozen)
        if not documented:  # as dataclasses words it, from the signature it now has
            made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
        if frozen:
            _freeze(made)
        _compare(made, frozen)
        return made  # type: ignore[no-any-return]

    return wrap if cls is None else wrap(cls)


def _freeze(made: Any) -> None:
    """A frozen class's guards, as ``dataclasses`` writes them but without compiling: assigning
    or deleting a field raises ``FrozenInstanceError``, and copying and pickling a slotted
    instance store its fields past them."""
    names = tuple(f.name for f in dataclasses.fields(made))
    values = _getter(names)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(made, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(made, self).__delattr__(name)

    methods: list[Any] = [__setattr__, __delattr__]
    if "__slots__" in made.__dict__:

        def __getstate__(self: Any) -> list[Any]:
            return list(values(self))

        def __setstate__(self: Any, state: list[Any]) -> None:
            for name, value in zip(names, state, strict=True):
                object.__setattr__(self, name, value)

        methods += [__getstate__, __setstate__]
    for method in methods:
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        setattr(made, method.__name__, method)


def frozen_event(cls: _C) -> _C:
    """A frozen, slotted, keyword-only dataclass made of ``cls`` without compiling anything; it
    has no ``__init__`` until :func:`tracer.trace.event_code.install` gives it one."""
    # dataclasses refuses a non-frozen class over a frozen base: the bases report non-frozen
    # parameters while it collects this class's fields, then frozen ones again.
    bases = [b for b in cls.__mro__[1:] if "__dataclass_params__" in b.__dict__]
    thawed = [b.__dict__["__dataclass_params__"] for b in bases]
    for base in bases:
        base.__dataclass_params__ = _THAWED  # type: ignore[attr-defined]
    try:
        made: Any = dataclasses.dataclass(  # type: ignore[call-overload]
            cls, init=False, repr=False, eq=False, slots=True, kw_only=True
        )
    finally:
        for base, params in zip(bases, thawed, strict=True):
            base.__dataclass_params__ = params  # type: ignore[attr-defined]
    _compare(made, frozen=True)
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
