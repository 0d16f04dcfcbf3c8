"""Each line kind's quick soundness test, written out as Python, and compiled ahead of time.

The readers' line check (:mod:`tracer.trace.line_check`) asks of every line whether it is sound
against its kind's schema before it asks for the worded problems, and a plain function per kind
answers that many times faster than walking the schema: :func:`compile_sound` writes one (as
``dataclasses`` writes ``__init__``; the names in it are this module's own, the keys and
constants ``repr``'d from the schema :func:`~tracer.trace.schema_build.build_schema` made).
Compiling the source of the kinds a trace holds cost about a tenth of a whole import's start-up,
so :mod:`tracer.trace.event_sound` holds them compiled ahead of time (``python -m
tracer.cli.generate`` writes it, a test keeps it current), with the bytes of the
``schema.json`` it was written from: while the file is the same
(:func:`~tracer.trace.event_schema.generated` is then asked, and nothing is parsed), or a kind's
schema is (:func:`~tracer.trace.event_schema.sound_for`), that one is taken; a new one is
compiled otherwise. The bytes rather than each kind's schema as a Python literal: building those
21 dictionaries and reading ``schema.json`` to compare them cost every import about 2M
instructions. Those picks live with their caller, so that a process taking the tests compiled
ahead of time never loads this module, the code that writes them (0.6M instructions an import).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The Python type each JSON type names (``number`` is tested as int or float).
_NAMES = {
    "string": "str",
    "integer": "int",
    "boolean": "bool",
    "object": "dict",
    "array": "list",
    "null": "type(None)",
}


class Source:
    """Python source for :func:`compile_sound`: one expression per schema, helpers as needed."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.scope: dict[str, Any] = {"_MISSING": _MISSING}
        self.n = 0

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"_{prefix}{self.n}"

    def expr(self, schema: dict[str, Any], var: str) -> str:
        """An expression that is true when ``var`` is sound against ``schema``."""
        if "const" in schema:
            return f"{var} == {schema['const']!r}"
        if "enum" in schema:
            options = self.name("enum")
            self.scope[options] = tuple(schema["enum"])
            return f"{var} in {options}"
        if "anyOf" in schema:
            return "(" + " or ".join(f"({self.expr(o, var)})" for o in schema["anyOf"]) + ")"
        expected = schema.get("type")
        if expected is None:
            return "True"
        if expected == "object":
            if not schema.get("properties") and not schema.get("required"):
                return f"type({var}) is dict"  # any object: no function to call
            return f"{self.object_function(schema)}({var})"
        if expected == "array":
            if "items" not in schema:
                return f"type({var}) is list"
            every = self.name("items")
            self.lines += [
                f"def {every}(v):",
                "    for x in v:",
                f"        if not ({self.expr(schema['items'], 'x')}):",
                "            return False",
                "    return True",
            ]
            return f"(type({var}) is list and {every}({var}))"
        if expected == "number":
            return f"(type({var}) is int or type({var}) is float)"
        if expected == "null":
            return f"{var} is None"
        return f"type({var}) is {_NAMES[expected]}"

    def object_function(self, schema: dict[str, Any]) -> str:
        """A function testing an object: one ``and`` chain of one test a key, each key looked
        up once (a statement and a branch a key cost nearly twice as much, on every line an
        import writes)."""
        name = self.name("object")
        required = schema.get("required", ())
        clauses: list[str] = []
        tests = {
            key: (self.expr(sub, _VAR), nullable(sub))
            for key, sub in schema.get("properties", {}).items()
        }
        for key in required:  # those a test below does not look up anyway
            assert isinstance(key, str)
            if tests.get(key, ("True", True))[0] == "True":
                clauses.append(f"{key!r} in v")
        for key, (test, none_ok) in tests.items():
            if test == "True":
                continue
            # A missing key reads as None: where None passes the test, a required key is
            # asked for first; where it fails it, an optional key is told apart from a null.
            if key not in required and not none_ok:
                clauses.append(f"((x := get({key!r}, _MISSING)) is _MISSING or {_bind(test)})")
                continue
            looked_up = f"get({key!r})"
            if test.count(_VAR) == 1:
                test = test.replace(_VAR, looked_up)
            else:
                test = _bind(test.replace(_VAR, f"(x := {looked_up})", 1))
            clauses.append(f"({key!r} in v and {test})" if key in required and none_ok else test)
        body = [f"def {name}(v):", "    if type(v) is not dict:", "        return False"]
        if clauses:
            body += ["    get = v.get", "    return (", *[f"        {c}" for c in clauses[:1]]]
            body += [f"        and {c}" for c in clauses[1:]]
            body.append("    )")
        else:
            body.append("    return True")
        self.lines += body
        return name


#: The placeholder a key's test is written with, then replaced by the look-up of the key.
_VAR = "_value_"


def _bind(test: str) -> str:
    """``test`` on the value already bound to ``x``."""
    return test.replace(_VAR, "x")


def nullable(schema: dict[str, Any]) -> bool:
    """Whether ``None`` (JSON null, or a key that is missing) passes ``schema``'s test."""
    if "const" in schema:
        return schema["const"] is None
    if "enum" in schema:
        return None in schema["enum"]
    if "anyOf" in schema:
        return any(nullable(o) for o in schema["anyOf"])
    return schema.get("type") in (None, "null")


_MISSING = object()


def compile_sound(schema: dict[str, Any], label: str = "schema") -> Callable[[Any], bool]:
    """``schema`` as one function that says whether a value is sound, written out as Python
    source (as ``dataclasses`` writes ``__init__``): the names in it are this module's own, the
    keys and constants ``repr``'d from the schema
    :func:`~tracer.trace.schema_build.build_schema` made."""
    source = Source()
    source.lines += sound_lines(source.expr(schema, "v"))
    exec("\n".join(source.lines), source.scope)  # our own schema, see above
    function = source.scope["sound"]
    function.__qualname__ = f"sound_{label}"
    return function


def factory_lines(kind: str, schema: dict[str, Any]) -> list[str]:
    """``make_<kind>(_MISSING)``: the helpers and ``sound`` of one kind, nested in a function
    that returns ``sound`` (the constants its helpers name assigned first)."""
    source = Source()
    top = source.expr(schema, "v")
    lines = [f"def make_{kind}(_MISSING):"]
    lines += [
        f"    {name} = {value!r}" for name, value in source.scope.items() if name != "_MISSING"
    ]
    lines += ["    " + line for line in [*source.lines, *sound_lines(top)]]
    return [*lines, "    return sound"]


def sound_lines(top: str) -> list[str]:
    """``sound``: the top-level object's function itself when that is the test (no call
    through a wrapper on every line), else a function returning ``top``."""
    if top.endswith("(v)") and top[:-3].isidentifier():
        return [f"sound = {top[:-3]}"]
    return ["def sound(v):", f"    return {top}"]


@functools.cache
def written_from() -> dict[str, Any]:
    """The ``$defs`` :mod:`tracer.trace.event_sound` was written from (parsed when a schema
    differs from the file's, so that each kind's is compared)."""
    from tracer.trace import event_sound

    return json.loads(event_sound.SCHEMA_JSON)["$defs"]
