"""A record's fields, collected as ``dataclasses`` collects them, without what makes that costly.

Before ``@dataclass`` writes a single method it collects the class's fields
(``dataclasses._process_class``: its bases' ``__dataclass_fields__`` first, then one
``dataclasses.Field`` for each of the class's own annotations, ``_get_field``). To tell a
``ClassVar`` from a field it matches each string annotation with a regular expression and looks
the name up in the class's module, which it can do only once ``typing`` is imported: about 0.2M
instructions a class (7M at every import), and 12M more to import ``typing``.
:func:`collect_fields` does the same collecting from the annotations' text alone: real
``dataclasses.Field`` objects, ``ClassVar`` ones among them and marked as such, a ``field(...)``
on the class replaced by its default, and the errors ``dataclasses`` raises (a mutable default, a
field without an annotation, a frozen class on a non-frozen base) raised with its words. A class
with an ``InitVar`` or ``KW_ONLY`` is left to ``dataclasses`` itself (none of ours has one).

:mod:`tracer.model.record_class` makes the class from what is collected here;
``tests/trace/test_event_class.py`` makes every event and record again with ``dataclasses`` and
compares. This mirrors Python's ``dataclasses``, not Claude Code, whose messages are plain
objects.
"""

from __future__ import annotations

import dataclasses
import sys
from itertools import repeat
from types import MemberDescriptorType

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no import needs it
    from typing import Any


_MISSING = dataclasses.MISSING
FIELD: Any = dataclasses._FIELD  # type: ignore[attr-defined]
"""The kind ``dataclasses`` gives a field that is a field (not a class variable)."""
_CLASSVAR: Any = dataclasses._FIELD_CLASSVAR  # type: ignore[attr-defined]
#: An annotation ``dataclasses`` treats specially and this module leaves to it (none of ours).
_SPECIAL = ("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")

#: What :func:`_kind` says of an ``InitVar`` or ``KW_ONLY`` annotation.
_LEFT_TO_DATACLASSES = object()
_KINDS: dict[str, Any] = {}
""":func:`_kind`'s answers for annotations' texts: the records share most of theirs (``int``,
``str | None``)."""


def _kind(annotation: Any) -> Any:
    """What a class annotation declares: a field (``FIELD``), a class variable (``_CLASSVAR``),
    or something :func:`collect_fields` leaves to ``dataclasses`` (an ``InitVar`` or
    ``KW_ONLY``). ``dataclasses`` can tell a class variable only when ``typing`` is loaded (it looks
    ``ClassVar`` up in the class's module); our modules name it under ``TYPE_CHECKING`` and
    never load ``typing``, so its text decides: ``ClassVar[...]`` or ``typing.ClassVar[...]``,
    as every module here writes it (``tests/trace/test_event_class.py`` checks they all do)."""
    if isinstance(annotation, str):
        kind = _KINDS.get(annotation)
        if kind is None:
            head = annotation.partition("[")[0].strip()
            kind = _KINDS[annotation] = (
                _CLASSVAR
                if head in ("ClassVar", "typing.ClassVar")
                else _LEFT_TO_DATACLASSES
                if head in _SPECIAL
                else FIELD
            )
        return kind
    initvar = dataclasses.InitVar
    if annotation is dataclasses.KW_ONLY or annotation is initvar or type(annotation) is initvar:
        return _LEFT_TO_DATACLASSES
    typing = sys.modules.get("typing")  # not a string: its writer loaded typing
    if typing is not None and dataclasses._is_classvar(annotation, typing):  # type: ignore[attr-defined]
        return _CLASSVAR
    return FIELD


def collect_fields(cls: Any, frozen: bool, kw_only: bool) -> dict[str, Any] | None:
    """``cls``'s fields, collected as ``dataclasses`` collects them (its bases' first, then its
    own annotations in order), each a real :class:`dataclasses.Field` with its kind, default and
    ``kw_only`` set; a field's ``field(...)`` object on the class replaced by its default; the
    errors ``dataclasses`` raises raised. ``None`` for a class with an ``InitVar`` or
    ``KW_ONLY`` (then ``dataclasses`` does it). What it does not do is the costly part:
    looking each string annotation up with a regular expression in the class's module."""
    fields: dict[str, Any] = {}
    frozen_base = has_base = False
    for base in cls.__mro__[-2:0:-1]:  # not object, which holds no fields
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is not None:
            has_base = True
            fields.update(base_fields)
            frozen_base = frozen_base or base.__dataclass_params__.frozen
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063  (as dataclasses reads them)
    given = []  # fields written as `name: type = field(...)`
    for name, annotation in annotations.items():
        # Asked of _KINDS here, not through a call for each field: most are known already.
        kind = _KINDS.get(annotation) if isinstance(annotation, str) else None
        if kind is None:
            kind = _kind(annotation)
        if kind is _LEFT_TO_DATACLASSES:
            return None
        default = getattr(cls, name, _MISSING)
        if isinstance(default, dataclasses.Field):
            f = default
            given.append(f)
        else:
            # A Field at run time; typeshed types field() as its default, for `x: int = field()`.
            f = dataclasses.field(
                default=_MISSING if isinstance(default, MemberDescriptorType) else default  # type: ignore[arg-type]
            )
        f.name, f.type, f._field_type = name, annotation, kind  # type: ignore[attr-defined]
        if kind is _CLASSVAR:
            if f.default_factory is not _MISSING:
                raise TypeError(f"field {name} cannot have a default factory")
            if f.kw_only is not _MISSING:
                raise TypeError(f"field {name} is a ClassVar but specifies kw_only")
        else:
            if f.kw_only is _MISSING:
                f.kw_only = kw_only
            if f.default.__class__.__hash__ is None:
                raise ValueError(
                    f"mutable default {type(f.default)} for field {name} is not allowed: "
                    "use default_factory"
                )
        fields[name] = f
    for f in given:  # the field(...) object on the class gives way to its default
        if f.default is _MISSING:
            delattr(cls, f.name)
        else:
            setattr(cls, f.name, f.default)
    # A field(...) left on the class without an annotation: asked in C first (map, not a loop
    # in Python), since no class of ours has one and the loop cost 18K instructions a class.
    if any(map(isinstance, cls.__dict__.values(), repeat(dataclasses.Field))):
        for name, value in cls.__dict__.items():
            if isinstance(value, dataclasses.Field) and name not in annotations:
                raise TypeError(f"{name!r} is a field but has no type annotation")
    if has_base and frozen_base != frozen:
        which = ("non-frozen", "a frozen") if frozen_base else ("frozen", "a non-frozen")
        raise TypeError(f"cannot inherit {which[0]} dataclass from {which[1]} one")
    return fields
