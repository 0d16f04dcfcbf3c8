"""The trace's JSON Schema, written from the event records themselves.

Each event class (:mod:`tracer.trace.events`) is a dataclass whose fields and their types are the
format: :func:`build_schema` turns them into the JSON Schema of one trace line (the header or any
known event, picked by ``kind``), with only the keywords the validator in
:mod:`tracer.trace.event_schema` knows. ``schema.json`` is this function's output, committed, and
a test keeps the two equal (regenerate the file from it after changing an event class). So a
reading command parses the file and never loads this module, which asks ``typing`` for every
class's type hints; the tests load it, and a copy of tracer without ``schema.json`` builds the
schema here when it first needs it.

Claude Code has no counterpart: its transcript lines are described by TypeScript types
(``types/logs.ts``) and no schema file; tracer's trace is a format of its own, so it ships one.
"""

from __future__ import annotations

import dataclasses
import types

from tracer.trace.events import END_REASONS, FORMAT, KNOWN, STAGES, VERSION, Event

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the functions below import typing when they run
    from typing import Any

_SIMPLE = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
    type(None): "null",
}


def _type_schema(tp: Any) -> dict[str, Any]:
    import typing

    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return {}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(a) for a in typing.get_args(tp)]
        return {} if {} in options else {"anyOf": options}
    if origin in (list, tuple):
        args = typing.get_args(tp)
        return {"type": "array", "items": _type_schema(args[0])} if args else {"type": "array"}
    if origin is dict:
        return {"type": "object"}
    if tp in _SIMPLE:
        return {"type": _SIMPLE[tp]} if tp is not float else {"type": "number"}
    return {}


def annotation_names() -> dict[str, Any]:
    """What the event classes' annotations name that their modules bind only for the type
    checker (``typing`` is not imported at run time): ``typing``'s names and the two aliases."""
    import typing

    names = {name: getattr(typing, name) for name in ("Any", "ClassVar", "Literal")}
    names["Stage"] = typing.Literal[STAGES]
    names["EndReason"] = typing.Literal[END_REASONS]
    return names


def _event_schema(cls: type[Event]) -> dict[str, Any]:
    import typing

    hints = typing.get_type_hints(cls, localns=annotation_names())
    props: dict[str, Any] = {"kind": {"const": cls.kind}}
    if cls.stage:
        props["stage"] = {"const": cls.stage}
    required = ["kind", "seq", "turn"]
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name])
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if no_default and f.name not in required:
            required.append(f.name)
    if cls.stage:
        required.insert(1, "stage")
    return {
        "type": "object",
        "description": (cls.__doc__ or "").strip().split("\n")[0],
        "properties": props,
        "required": required,
    }


def build_schema() -> dict[str, Any]:
    """The JSON Schema of one trace line: the header or any known event."""
    defs = {cls.kind: _event_schema(cls) for cls in KNOWN}
    defs["header"] = {
        "type": "object",
        "properties": {
            "format": {"const": FORMAT},
            "version": {"type": "integer"},
            "tracer_version": {"type": "string"},
            "created": {"type": "string"},
            "source": {"type": "object"},
            "volatile": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["format", "version", "tracer_version", "created", "source"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"tracer trace line (format {FORMAT}, version {VERSION})",
        "description": "Line 1 is the header; every later line is one event, picked by 'kind'. "
        "Readers skip kinds they do not know.",
        "$defs": defs,
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name in defs],
    }
