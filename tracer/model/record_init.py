"""The ``__init__`` of a lean record, as ``dataclasses`` would write it, compiled ahead of time.

:func:`tracer.model.record_class.lean_dataclass` makes the records every import creates (the
importer's own, the messages, the token accounts) without ``dataclasses`` writing and compiling
their methods; their ``__init__`` is the one thing whose speed counts (a record is made per
message, per block, per request). It is written here as ``dataclasses`` writes it (positional
or keyword parameters, defaults, default factories called per record, a frozen record's fields
stored past its guard), and ``python -m tracer.cli.generate`` writes it out for every record an
import makes into :mod:`tracer.model.lean_methods`, so that no start compiles it. The names in
the source are the records' field names (Python identifiers, checked), so the source is safe
to run. The events' own two methods are :mod:`tracer.trace.event_code`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HAS_FACTORY: Any = type("_HasFactory", (), {"__repr__": lambda self: "<factory>"})()
"""The default of a field with a default factory: the factory is called when it is passed."""


def lean_plan(cls: type, frozen: bool, fields: Any = None, new: bool = False) -> tuple[Any, ...]:
    """What a lean record's ``__init__`` is written from: how a field is stored (assigned, or
    past a frozen class's guard) and, for each field, its name and whether it is required
    (``R``), has a default (``D``) or a default factory (``F``); and whether its ``new`` is
    written too (see :func:`lean_source`). Only plain fields: positional or keyword, each in
    ``__init__`` (what ``dataclasses`` would write for them, this writes). ``fields``: the
    class's, as ``dataclasses.fields`` gives them (asked of it when not given)."""
    plan = []
    for f in dataclasses.fields(cls) if fields is None else fields:
        assert f.name.isidentifier() and f.init and not f.kw_only, (cls, f.name)
        if f.default_factory is not dataclasses.MISSING:
            plan.append((f.name, "F"))
        else:
            plan.append((f.name, "R" if f.default is dataclasses.MISSING else "D"))
    # A frozen record's fields go past its guard: through the slot's own setter where it has
    # slots (what object.__setattr__ ends in, without looking the name up), else through
    # object.__setattr__. Any other record assigns them: Python does that fastest.
    store = ("slot" if "__slots__" in cls.__dict__ else "object") if frozen else "attr"
    return (store, tuple(plan), new)


def lean_key(cls: type) -> str:
    """The name of a lean record's factory: its qualified name, as an identifier (a test's own
    may say ``<locals>``). Not its module's: a record keeps its factory when its module moves,
    and two records of one name share it only when their plans, and so their code, agree."""
    name = cls.__qualname__
    if name.isascii() and name.isidentifier():  # every record of ours: nothing to replace
        return name
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def lean_source(key: str, plan: tuple[Any, ...]) -> str:
    """The source of ``make_<key>``, which returns the record's ``__init__`` and its ``new``
    (``None`` unless the plan asks for it) given its slots' setters (a slotted class), its
    fields' defaults and default factories (in field order), the class and ``object.__new__``.

    ``new`` makes a record as calling the class does, for less: calling a class packs its
    keyword arguments into a dict and unpacks them again for ``__init__`` (about 2.4K
    instructions a ``Message``, of 6K), where a function takes them as they are. Its
    parameters are keyword-only, so a caller that names every field stays right when a field
    is added (a positional call would not). It is a plain function of the class, not a
    classmethod, which would bind a new method object at every call; a subclass does not
    inherit it, but gets one that calls the subclass
    (:func:`tracer.model.record_class.lean_dataclass`). Only a record made by the hundred in an
    import asks for one (``@lean_dataclass(new=True)``): every other ``new`` would be code each
    start loads for nothing."""
    store, fields, with_new = plan
    setters = [f"_set_{name}" for name, _ in fields] if store == "slot" else []
    defaults = [f"_default_{name}" for name, how in fields if how == "D"]
    factories = [f"_factory_{name}" for name, how in fields if how == "F"]
    params = [
        name if how == "R" else f"{name}=_default_{name}" if how == "D" else f"{name}=_HAS_FACTORY"
        for name, how in fields
    ]
    body = []
    for name, how in fields:
        value = f"_factory_{name}() if {name} is _HAS_FACTORY else {name}" if how == "F" else name
        if store == "slot":
            body.append(f"        _set_{name}(self, {value})")
        elif store == "object":
            body.append(f"        _object_setattr(self, {name!r}, {value})")
        else:
            body.append(f"        self.{name} = {value}")
    args = [*setters, *defaults, *factories, "_HAS_FACTORY", "_object_setattr", "_cls", "_new"]
    lines = [
        f"def make_{key}({', '.join(args)}):",
        f"    def __init__({', '.join(['self', *params])}):",
        *(body or ["        pass"]),
    ]
    if not with_new:
        lines.append("    return __init__, None")
    else:
        lines += [
            f"    def new({', '.join(['*', *params]) if params else ''}):",
            "        self = _new(_cls)",
            *body,
            "        return self",
            "    return __init__, new",
        ]
    return "\n".join(lines) + "\n"


FORM = 3
"""What the factories of :mod:`tracer.model.lean_methods` take and return (2: the class and
``object.__new__`` last, and ``__init__`` with ``new`` or ``None``; 3: ``new`` a plain function of
the class): a module written in another form is not used, its methods are compiled now (a plan
that still matches says nothing of the factory's signature)."""


def lean_module(classes: dict[str, tuple[Any, ...]]) -> str:
    """The text of :mod:`tracer.model.lean_methods` for ``classes`` (factory name → plan)."""
    parts = [
        '"""Generated by ``python -m tracer.cli.generate``: the lean records\' ``__init__`` and '
        "``new``,\ncompiled ahead of time (see :func:`tracer.model.record_init.lean_init`). "
        "Do not edit."
        '"""\n\n# ruff: noqa\n# fmt: off\n\nfrom __future__ import annotations\n\n'
        f"FORM = {FORM}\nPLANS: dict[str, tuple[object, ...]] = {{}}\n"
    ]
    for key, plan in sorted(classes.items()):
        parts.append(f"\nPLANS[{key!r}] = {plan!r}\n\n")
        parts.append(lean_source(key, plan))
    return "".join(parts)


#: Every lean record made so far, by factory name: what ``python -m tracer.cli.generate``
#: writes the factories of.
LEAN: dict[str, tuple[Any, ...]] = {}


def lean_init(
    cls: type, frozen: bool, fields: Any, new: bool = False
) -> tuple[Callable[..., None], Any]:
    """The ``__init__`` ``dataclasses`` would write for a lean record (``frozen``: stored past the
    class's guard) with these ``fields`` (as ``dataclasses.fields`` gives them), and, asked for
    (``new``), its ``new`` (a plain function of the class; see :func:`lean_source`), from
    :mod:`tracer.model.lean_methods` when it was written for the fields the class has now, else
    compiled here (a record edited since, or one of a test's own)."""
    from tracer.model import lean_methods

    plan = lean_plan(cls, frozen, fields, new)
    key = lean_key(cls)
    if cls.__module__.startswith("tracer."):  # not a test's own
        LEAN[key] = plan
    if lean_methods.PLANS.get(key) == plan and getattr(lean_methods, "FORM", 0) == FORM:
        factory = getattr(lean_methods, f"make_{key}")
    else:
        scope: dict[str, Any] = {}
        exec(lean_source(key, plan), scope)  # our own field names, see above
        factory = scope[f"make_{key}"]
    store = plan[0]
    setters = [cls.__dict__[f.name].__set__ for f in fields] if store == "slot" else []
    defaults = [f.default for f in fields if f.default is not dataclasses.MISSING]
    factories = [f.default_factory for f in fields if f.default_factory is not dataclasses.MISSING]
    init, made_new = factory(
        *setters, *defaults, *factories, _HAS_FACTORY, object.__setattr__, cls, object.__new__
    )
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    if made_new is not None:
        made_new.__qualname__ = f"{cls.__qualname__}.new"
    return init, made_new
