"""Dataclasses made without compiling: ``@dataclass`` for a fraction of the cost of creating
the class.

``dataclasses`` writes each method of a class as source and compiles it (``__init__``,
``__repr__``, ``__eq__``, and for a frozen class ``__hash__``, ``__setattr__``,
``__delattr__``): a hundred compilations at the start of every command that imports the trace's
events and the importer's records, once the largest part of ``tracer import``'s start-up
(``bench/startup.py``). Even told to write nothing, it still spent about 0.2M instructions a
class collecting the fields, so :mod:`tracer.model.record_fields` collects them instead, as
``dataclasses`` does but from the annotations' text; :func:`_make` leaves on the class what
``dataclasses`` leaves (``__dataclass_fields__``, ``__dataclass_params__``,
``__match_args__``, the slotted class made again); ``tests/trace/test_event_class.py`` makes
every event and record again with ``dataclasses`` and compares.

:func:`lean_dataclass` is ``@dataclass`` for the records every import creates (the importer's
own, the messages, the token accounts): its ``__init__``, the one ``dataclasses`` would write,
is compiled ahead of time (:mod:`tracer.model.lean_methods`,
:func:`tracer.model.record_init.lean_init`); the others are closures over the field names that
do what the generated ones do: ``__eq__`` compares the fields as a tuple (same class only),
``__hash__`` hashes that tuple, ``__repr__`` is ``Name(field=value, ...)``, assigning or
deleting a field of a frozen record raises ``FrozenInstanceError``. To ``dataclasses.fields``,
``replace``, ``asdict``, ``is_dataclass``, ``copy`` and ``pickle`` the class is the dataclass it
was. The trace's event classes are made the same way (:mod:`tracer.trace.event_class`). It
lives in the model, the lowest layer that makes such records (``Message``, ``ApiMessage``),
so that the trace and the importers above it share it.
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
from collections.abc import Callable
from itertools import filterfalse
from operator import attrgetter

from tracer.model.record_fields import FIELD, collect_fields
from tracer.model.record_init import lean_init

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no import needs it
    from typing import Any, TypeVar, dataclass_transform

    _C = TypeVar("_C", bound=type)
else:

    def dataclass_transform(**_: object) -> Any:
        """What ``typing.dataclass_transform`` (PEP 681) does at run time, without importing
        ``typing``: nothing, the decorator it marks is returned as it was. To a type checker
        (which reads the branch above) it says that the decorator makes dataclasses, so that
        ``Message(uuid=...)`` is checked against the record's fields."""
        return lambda decorator: decorator


_MISSING = dataclasses.MISSING


def _params(frozen: bool, kw_only: bool, slots: bool) -> Any:
    """The ``__dataclass_params__`` a class made by ``@dataclass`` with these parameters reports
    (``__init__``, ``__repr__`` and ``__eq__`` written): what every class made here reports, as
    if ``dataclasses`` had written its methods. Made without calling its ``__init__``, whose
    parameters differ from one Python to the next: each slot it has is filled."""
    kind = dataclasses._DataclassParams  # type: ignore[attr-defined]
    params = kind.__new__(kind)
    values = {"init": True, "repr": True, "eq": True, "order": False, "unsafe_hash": False}
    values |= {"frozen": frozen, "match_args": True, "kw_only": kw_only, "slots": slots}
    for name in kind.__slots__:
        setattr(params, name, values.get(name, False))
    return params


_PARAMS = {
    (frozen, kw_only, slots): _params(frozen, kw_only, slots)
    for frozen in (False, True)
    for kw_only in (False, True)
    for slots in (False, True)
}


def _slotted(cls: Any, names: tuple[str, ...], added: dict[str, Any]) -> Any:
    """``cls`` made again with a slot for each field (``names``), as ``dataclasses`` makes it (a
    class's ``__slots__`` cannot be given once it exists): the fields' class attributes and the
    ``__dict__`` and ``__weakref__`` descriptors left out, a base's slots not repeated; what the
    class is given (``added``) put in its namespace, not set on it once made (setting
    ``__eq__`` on a class costs what making a fifth of it does)."""
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    inherited: set[str] = set()
    for base in cls.__mro__[1:-1]:
        slots = base.__dict__.get("__slots__")
        if slots is not None:
            inherited.update((slots,) if isinstance(slots, str) else slots)
    namespace = cls.__dict__.copy()  # the dict's own copy: dict(proxy) asks key by key
    namespace.update(added)
    namespace["__slots__"] = tuple(filterfalse(inherited.__contains__, names))
    namespace["__qualname__"] = cls.__qualname__
    for name in (*names, "__dict__", "__weakref__"):
        namespace.pop(name, None)
    return type(cls)(cls.__name__, cls.__bases__, namespace)


def _explicit_hash(cls: Any) -> bool:
    """Whether the class's own ``__hash__`` is one ``dataclasses`` keeps: not the ``None``
    Python gives a class that defines ``__eq__`` (asked before any method is written)."""
    own_hash = cls.__dict__.get("__hash__", _MISSING)
    return not (own_hash is _MISSING or (own_hash is None and "__eq__" in cls.__dict__))


def _make(cls: Any, *, frozen: bool, kw_only: bool, slots: bool) -> tuple[Any, Any]:
    """What ``@dataclass(init=False, ...)`` with these parameters leaves of ``cls``, nothing
    compiled: its fields, its ``__match_args__``, its slots; ``__eq__``, ``__hash__`` and
    ``__repr__`` (:func:`_comparisons`); a frozen class's guards (:func:`_freeze`); the
    ``__dataclass_params__`` of one whose ``__init__`` was written too (the caller gives it).
    With it, its fields as ``dataclasses.fields`` gives them, read once: each maker is handed
    them, or their names (asking ``dataclasses`` again cost 10K instructions a time, five times
    a class). ``dataclasses`` itself spent about 0.2M instructions a class more doing it (for
    the 36 classes of every import, 7M): matching each field's annotation against ``ClassVar``
    and ``InitVar`` in its module, then building the class's methods' source it was told to
    skip."""
    explicit_hash = _explicit_hash(cls)
    params = _PARAMS[frozen, kw_only, slots]
    collected = collect_fields(cls, frozen, kw_only)
    if collected is None:
        cls = dataclasses.dataclass(
            cls, init=False, repr=False, eq=False, frozen=frozen, kw_only=kw_only, slots=slots
        )
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        _compare(cls, fields, names, frozen, explicit_hash)
        cls.__dataclass_params__ = params
    else:
        fields = tuple(f for f in collected.values() if f._field_type is FIELD)
        names = tuple(f.name for f in fields)
        added = {"__dataclass_fields__": collected, "__dataclass_params__": params}
        if "__match_args__" not in cls.__dict__:
            added["__match_args__"] = tuple(f.name for f in fields if f.init and not f.kw_only)
        added.update(_comparisons(cls, fields, names, frozen, explicit_hash))
        if slots:
            cls = _slotted(cls, names, added)
        else:
            for name, value in added.items():
                setattr(cls, name, value)
        if "__abstractmethods__" in cls.__dict__:  # what update_abstractmethods asks first, in C
            abc.update_abstractmethods(cls)
    if frozen:
        _freeze(cls, names)
    return cls, fields


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` as a tuple (``attrgetter`` gives one, in C, for two or more)."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda self: tuple(getattr(self, name) for name in names)


def _comparisons(
    cls: Any, fields: Any, names: tuple[str, ...], frozen: bool, explicit_hash: bool
) -> dict[str, Any]:
    """``__eq__``, ``__hash__`` and ``__repr__`` as ``dataclasses`` writes them for ``cls``
    (``eq=True``, ``repr=True``), each left out where the class defines its own: equal when of
    the same class with equal compared fields; hashable by those fields when frozen, unhashable
    (``None``) when not, unless the class wrote its own ``__hash__``; ``Name(field=value, ...)``
    over the fields shown. ``fields``: the class's, as ``dataclasses.fields`` gives them, and
    their ``names``."""
    if all(f.compare and f.repr and f.hash is None for f in fields):  # as our records' are
        shown = names
        compared = hashed = values = _getter(shown)
    else:
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

    own = cls.__dict__
    methods: dict[str, Any] = {}
    for method in (__eq__, __repr__):
        if method.__name__ not in own:
            method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
            methods[method.__name__] = method
    if not explicit_hash:
        __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
        methods["__hash__"] = __hash__ if frozen else None
    return methods


def _compare(
    made: Any, fields: Any, names: tuple[str, ...], frozen: bool, explicit_hash: bool
) -> None:
    """:func:`_comparisons` set on a class ``dataclasses`` made (its own ``__eq__`` and
    ``__repr__`` not written)."""
    for name, method in _comparisons(made, fields, names, frozen, explicit_hash).items():
        setattr(made, name, method)


def _made_by_calling(made: type, **fields: Any) -> Any:
    return made(**fields)


called_new: Any = classmethod(_made_by_calling)
"""``new`` of a class nothing wrote one for (a subclass of a record or an event made elsewhere):
calling the class itself."""


def _new_calls_the_class(cls: type) -> None:
    """The ``__init_subclass__`` of a record with ``new``: the subclass's ``new`` calls it."""
    cls.new = called_new  # type: ignore[attr-defined]


@dataclass_transform()  # defaults as below: neither frozen nor keyword-only unless asked
def lean_dataclass(
    cls: Any = None,
    /,
    *,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
    new: bool = False,
) -> Any:
    """``@dataclass`` (with these parameters) for a class whose creation every import pays:
    :func:`_make` collects the fields and gives the class ``__eq__``, ``__hash__`` and
    ``__repr__`` (and makes it slotted, and a frozen class's guards), nothing compiled;
    :func:`tracer.model.record_init.lean_init` gives it the ``__init__`` ``dataclasses`` would
    write, compiled ahead of time. (``dataclasses`` compiled 32 such methods at every start of
    an import, 3 ms of its CPU.) With ``new``, the class gets a ``new`` function too:
    ``Cls.new(field=...)`` is ``Cls(field=...)`` for less, for a record made by the hundred
    (:func:`tracer.model.record_init.lean_source`); a subclass gets one that calls it."""

    def wrap(cls: _C) -> _C:
        if kw_only or any("__dataclass_fields__" in b.__dict__ for b in cls.__mro__[1:]):
            # Not a plain record: dataclasses writes its methods, as it always did.
            assert not new, "new is written for a plain record only"
            explicit_hash = _explicit_hash(cls)
            made: Any = dataclasses.dataclass(
                cls, repr=False, eq=False, frozen=frozen, slots=slots, kw_only=kw_only
            )
            fields = dataclasses.fields(made)
            _compare(made, fields, tuple(f.name for f in fields), frozen, explicit_hash)
            return made
        documented = bool(cls.__doc__)
        made, fields = _make(cls, frozen=frozen, kw_only=False, slots=slots)
        made.__init__, made_new = lean_init(made, frozen, fields, new)
        if made_new is not None:
            # A plain function, which a subclass must not inherit: it would make the parent.
            assert "__init_subclass__" not in cls.__dict__, "new is written for a plain record"
            made.new = made_new
            made.__init_subclass__ = classmethod(_new_calls_the_class)
        if not documented:
            # As dataclasses words it, from the class's signature: asked once __init__ is there
            # (before, it would be object's, whose text signature inspect parses with tokenize,
            # whose expressions cost 20M instructions, 3 ms, to compile).
            made.__doc__ = made.__name__ + _signature(made)
        return made

    return wrap if cls is None else wrap(cls)


def _freeze(made: Any, names: tuple[str, ...]) -> None:
    """A frozen class's guards, as ``dataclasses`` writes them but without compiling: assigning
    or deleting a field (``names``) raises ``FrozenInstanceError``, and copying and pickling a
    slotted instance store its fields past them."""
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


def _signature(cls: Any) -> str:
    """The signature ``dataclasses`` puts in an undocumented class's docstring."""
    try:
        return str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return ""
