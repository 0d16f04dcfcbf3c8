"""The two methods every event calls most, written out field by field for each event class.

An import makes an event for every step (about a thousand for a long session) and turns each
into a JSON object at once, so ``__init__`` and ``to_dict`` run once per line of the trace.
Written generically, both spend most of their time on bookkeeping rather than on the fields:

* ``dataclasses`` gives a frozen class an ``__init__`` that stores each field through
  ``object.__setattr__(self, name, value)``, which looks the name up in the class on every call
  before it reaches the slot's own setter. :func:`fast_init` calls those setters directly (a
  slotted class holds one descriptor per field; its ``__set__`` is where the lookup ends), which
  makes building an event about twice as fast. The instance is as frozen as before: assigning to
  a field still raises ``FrozenInstanceError``, since only the class's own ``__setattr__`` is
  bypassed, exactly as ``dataclasses`` bypasses it.
* ``to_dict`` would loop over the field names with ``getattr``; :func:`compile_to_dict` writes the
  loop out, one ``if`` per field.

Both are generated source, as ``dataclasses`` generates its own; the names in it are the class's
field names (Python identifiers, checked), so the source is safe to run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from types import MemberDescriptorType

# ``new`` of a class install() writes none for (a subclass made elsewhere, a class with a default
# factory): calling the class itself. Event gives it to every subclass as it is made, and
# install() replaces it with the written-out one.
from tracer.model.record_class import called_new

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SCALARS = frozenset({"int", "str", "float", "bool"})
"""Annotations whose values are never a tuple: ``to_dict`` need not look for one."""


_SCALAR_SEEN: dict[str, bool] = {}
""":func:`_scalar`'s answers: the event classes share a few annotations (``int``,
``str | None``), asked of at every start."""


def _scalar(annotation: Any) -> bool:
    """Whether a field's (string) annotation allows only a scalar: ``int``, ``str | None``, a
    ``Literal`` of strings and the like."""
    if not isinstance(annotation, str):
        return False
    known = _SCALAR_SEEN.get(annotation)
    if known is None:
        parts = [p.strip() for p in annotation.split("|")]
        known = all(p in _SCALARS or p == "None" or p.startswith("Literal[") for p in parts)
        _SCALAR_SEEN[annotation] = known
    return known


def compile_to_dict(cls: type) -> Callable[[Any], dict[str, Any]]:
    """``to_dict`` for one event class: ``kind`` and ``stage`` first, a ``None`` optional field
    left out, a tuple made a list (looked for only where the annotation allows one).

    A field without a default is written even when it is ``None`` (as JSON ``null``): the
    reader asks for every such field, and a tool that returned nothing (an imported MCP call
    whose result has neither content nor ``toolUseResult``) has ``output`` null, not absent."""
    head = {"kind": cls.kind, **({"stage": cls.stage} if cls.stage else {})}  # type: ignore[attr-defined]
    lines = ["def to_dict(self):", f"    out = {head!r}"]
    for f in dataclasses.fields(cls):
        assert f.name.isidentifier()
        value = "v" if _scalar(f.type) else "list(v) if isinstance(v, tuple) else v"
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        lines += [f"    v = self.{f.name}"]
        if required:
            lines += [f"    out[{f.name!r}] = {value}"]
        else:
            lines += ["    if v is not None:", f"        out[{f.name!r}] = {value}"]
    lines.append("    return out")
    scope: dict[str, Any] = {}
    exec("\n".join(lines), scope)  # our own field names, see above
    function = scope["to_dict"]
    function.__qualname__ = f"{cls.__qualname__}.to_dict"
    return function


def fast_init(cls: type[Any]) -> Callable[..., None] | None:
    """An ``__init__`` for a frozen, slotted, keyword-only dataclass that stores each field
    through its slot's setter; ``None`` when the class is not that simple (a default factory, a
    ``__post_init__``, a field without a slot), and keeps the one ``dataclasses`` wrote."""
    if hasattr(cls, "__post_init__"):
        return None
    scope: dict[str, Any] = {}
    params: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):
        assert f.name.isidentifier()
        slot = next((k.__dict__[f.name] for k in cls.__mro__ if f.name in k.__dict__), None)
        if not isinstance(slot, MemberDescriptorType) or not f.kw_only:
            return None
        if f.default_factory is not dataclasses.MISSING:
            return None
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        scope[f"_set_{f.name}"] = slot.__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, *, {', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    exec(source, scope)  # our own field names, see above
    function = scope["__init__"]
    function.__qualname__ = f"{cls.__qualname__}.__init__"
    function.__annotations__ = dict(getattr(cls.__init__, "__annotations__", {}))
    return function


def _plan(cls: type, fields: Any = None) -> tuple[Any, ...] | None:
    """What a class's two methods are written from: its ``kind`` and ``stage`` and, for each
    field, its name, whether it has a default and whether its value may be a tuple; ``None`` when
    :func:`fast_init` could not write its ``__init__``. ``fields``: the class's, as
    ``dataclasses.fields`` gives them (asked of it when not given)."""
    if hasattr(cls, "__post_init__"):
        return None
    plan = []
    for f in dataclasses.fields(cls) if fields is None else fields:
        assert f.name.isidentifier()
        if not f.kw_only or f.default_factory is not dataclasses.MISSING:
            return None
        plan.append((f.name, f.default is not dataclasses.MISSING, _scalar(f.type)))
    return (cls.kind, cls.stage or None, tuple(plan))  # type: ignore[attr-defined]


def event_plan(cls: type) -> tuple[Any, ...] | None:
    """What a class's ``to_dict`` is written from (see :func:`_plan`): also what the line
    check's ``checked_dict`` is written from (:mod:`tracer.trace.checked_code`). The plan
    :func:`install` wrote the class's methods from, when it did (reading the fields again
    costs as much as the check of a hundred lines)."""
    plan = _INSTALLED.get(cls)
    return plan if plan is not None else _plan(cls)


_INSTALLED: dict[type, tuple[Any, ...]] = {}
"""The plan each class's methods were installed from (:func:`install`)."""


FORM = 5
"""What the factories of :mod:`tracer.trace.event_methods` take and return (2: the class and
``object.__new__`` too, and ``new`` among what they return; 4: the class and its draft, see
:func:`draft_of`; 5: ``new`` a plain function, see :func:`factory_source`): a module written in
another form is not used, its methods are compiled now."""


def draft_of(cls: type) -> type:
    """A subclass of a frozen event class that ``new`` fills in, then makes the class itself.

    A frozen class refuses assignment in its own ``__setattr__``, so its fields can only be
    stored through each slot's setter: a call into C per field, about twenty times the cost of
    a plain assignment (on a dense session a tenth of an import went to storing fields). The
    draft adds no slot and takes back ``object``'s own ``__setattr__``, so ``new`` assigns each
    field as an unfrozen class would, then sets ``__class__`` to the frozen class, which
    Python allows between two classes of the same layout. The draft is made by calling it (it
    has ``object``'s own ``__init__``, no Python call), which costs less than ``object.__new__``.
    Nobody ever holds a draft: the event ``new`` returns is of the class itself, as frozen as
    one ``__init__`` made."""
    namespace = {
        "__slots__": (),
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__init__": object.__init__,
        "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.draft",
    }
    return type(cls)(f"{cls.__name__}Draft", (cls,), namespace)


def factory_source(name: str, plan: tuple[Any, ...]) -> str:
    """The source of ``make_<name>``, which returns a class's ``__init__``, ``to_dict`` and
    ``new`` given its slots' setters, its fields' defaults (in field order, those that have
    one), the class and its draft (:func:`draft_of`).

    ``new`` makes an instance as calling the class does, for a fraction of the cost: calling a
    class packs its keyword arguments into a dict and unpacks them again for ``__init__``; a
    function takes them as they are, and assigns them to a draft rather than through each
    slot's setter. It is a plain function of the class, not a classmethod: ``Kind.new`` is then
    the function itself, where a classmethod binds a new method object at every call (a tenth
    of the cost of a small event). A subclass made elsewhere does not inherit it: it gets
    :data:`called_new` as it is made (:meth:`tracer.trace.event_base.Event.__init_subclass__`)."""
    kind, stage, fields = plan
    setters = [f"_set_{field}" for field, _, _ in fields]
    defaults = [f"_default_{field}" for field, has, _ in fields if has]
    params = [f"{field}=_default_{field}" if has else field for field, has, _ in fields]
    head = {"kind": kind, **({"stage": stage} if stage else {})}
    lines = [
        f"def make_{name}({', '.join([*setters, *defaults, '_cls', '_draft'])}):",
        f"    def __init__(self, *, {', '.join(params)}):",
        *(f"        _set_{field}(self, {field})" for field, _, _ in fields),
        f"    def new(*, {', '.join(params)}):",
        "        self = _draft()",
        *(f"        self.{field} = {field}" for field, _, _ in fields),
        "        self.__class__ = _cls",
        "        return self",
        "    def to_dict(self):",
        f"        out = {head!r}",
    ]
    for field, has, scalar in fields:
        value = "v" if scalar else "list(v) if isinstance(v, tuple) else v"
        lines.append(f"        v = self.{field}")
        if has:
            lines += ["        if v is not None:", f"            out[{field!r}] = {value}"]
        else:
            lines.append(f"        out[{field!r}] = {value}")
    lines += ["        return out", "    return __init__, to_dict, new"]
    return "\n".join(lines) + "\n"


def methods_module(classes: tuple[type, ...]) -> str:
    """The text of :mod:`tracer.trace.event_methods` for ``classes``."""
    parts = [
        '"""Generated by ``python -m tracer.cli.generate``: the event classes\' ``__init__``, '
        "``to_dict`` and ``new``,\ncompiled ahead of time (see :mod:`tracer.trace.event_code`). "
        "Do not edit."
        '"""\n\n# ruff: noqa\n# fmt: off\n\nfrom __future__ import annotations\n\n'
        f"FORM = {FORM}\nPLANS: dict[str, tuple[object, ...]] = {{}}\n"
    ]
    for cls in classes:
        plan = _plan(cls)
        assert plan is not None, cls
        parts.append(f"\nPLANS[{cls.__name__!r}] = {plan!r}\n\n")
        parts.append(factory_source(cls.__name__, plan))
    return "".join(parts)


def install(cls: type, *, to_dict: bool = True) -> None:
    """Give one event class its written-out ``__init__`` and ``to_dict``: the ones compiled ahead
    of time in :mod:`tracer.trace.event_methods` when the class still has the fields they were
    written for, else compiled now (a class edited since, or one of a test's own). The base
    :class:`~tracer.trace.event_base.Event` keeps its own ``to_dict`` (``to_dict=False``), which
    writes one for each subclass made elsewhere."""
    from tracer.trace import event_methods

    fields = dataclasses.fields(cls)
    plan = _plan(cls, fields)
    if plan is None:
        cls.new = called_new  # type: ignore[attr-defined]
        init = fast_init(cls)
        if init is not None:
            cls.__init__ = init  # type: ignore[misc]
        if to_dict:
            cls.to_dict = compile_to_dict(cls)  # type: ignore[attr-defined]
        return
    name = cls.__name__
    if event_methods.PLANS.get(name) == plan and getattr(event_methods, "FORM", 0) == FORM:
        factory = getattr(event_methods, f"make_{name}")
    else:
        scope: dict[str, Any] = {}
        exec(factory_source(name, plan), scope)  # our own field names, see above
        factory = scope[f"make_{name}"]
    # Each field's slot, looked up as the class's attribute (a slot is a descriptor that gives
    # itself when asked of the class): the one its instances' attribute resolves to.
    setters = [getattr(cls, f).__set__ for f, _, _ in plan[2]]
    defaults = [f.default for f in fields if f.default is not dataclasses.MISSING]
    init, convert, new = factory(*setters, *defaults, cls, draft_of(cls))
    _INSTALLED[cls] = plan
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    new.__qualname__ = f"{cls.__qualname__}.new"
    cls.new = new  # type: ignore[attr-defined]  # a plain function: see factory_source
    if to_dict:
        convert.__qualname__ = f"{cls.__qualname__}.to_dict"
        cls.to_dict = convert  # type: ignore[attr-defined]
