"""Each line kind's quick soundness test, written out as Python, and compiled ahead of time.

The readers' line check (:mod:`tracer.trace.line_check`) asks of every line whether it is sound
against its kind's schema before it asks for the worded problems, and a plain function per kind
answers that many times faster than walking the schema: :func:`compile_sound` writes one (as
``dataclasses`` writes ``__init__``; the names in it are this module's own, the keys and
constants ``repr``'d from the schema :func:`~tracer.trace.event_schema.build_schema` made).
Compiling the source of the kinds a trace holds cost about a tenth of a whole import's start-up,
so :mod:`tracer.trace.event_sound` holds them compiled ahead of time (``python -m
tracer.cli.generate`` writes it, a test keeps it current), with the bytes of the
``schema.json`` it was written from: while the file is the same (:func:`generated` is then
asked, and nothing is parsed), or a kind's schema is (:func:`sound_for`), that one is taken; a
new one is compiled otherwise. The bytes rather than each kind's schema as a Python literal:
building those 21 dictionaries and reading ``schema.json`` to compare them cost every import
about 2M instructions.

An import's writer does not even look the keys up again: :func:`checked_for` gives each event
class a ``checked_dict``, its ``to_dict`` written out again (from the same plan,
:func:`tracer.trace.event_code.event_plan`) with the kind's test of each value put beside the
line that puts it in, answering ``(object, sound)``; the line check
(:meth:`~tracer.trace.line_check.LineCheck.object_of`) takes that answer instead of testing the
finished object. It is generated with the quick tests, and a test keeps it agreeing with them.
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


class _Source:
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
            key: (self.expr(sub, _VAR), _nullable(sub))
            for key, sub in schema.get("properties", {}).items()
        }
        for key in required:  # those a test below does not look up anyway
            assert isinstance(key, str)
            if tests.get(key, ("True", True))[0] == "True":
                clauses.append(f"{key!r} in v")
        for key, (test, nullable) in tests.items():
            if test == "True":
                continue
            # A missing key reads as None: where None passes the test, a required key is
            # asked for first; where it fails it, an optional key is told apart from a null.
            if key not in required and not nullable:
                clauses.append(f"((x := get({key!r}, _MISSING)) is _MISSING or {_bind(test)})")
                continue
            looked_up = f"get({key!r})"
            if test.count(_VAR) == 1:
                test = test.replace(_VAR, looked_up)
            else:
                test = _bind(test.replace(_VAR, f"(x := {looked_up})", 1))
            clauses.append(f"({key!r} in v and {test})" if key in required and nullable else test)
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


def _nullable(schema: dict[str, Any]) -> bool:
    """Whether ``None`` (JSON null, or a key that is missing) passes ``schema``'s test."""
    if "const" in schema:
        return schema["const"] is None
    if "enum" in schema:
        return None in schema["enum"]
    if "anyOf" in schema:
        return any(_nullable(o) for o in schema["anyOf"])
    return schema.get("type") in (None, "null")


_MISSING = object()


def compile_sound(schema: dict[str, Any], label: str = "schema") -> Callable[[Any], bool]:
    """``schema`` as one function that says whether a value is sound, written out as Python
    source (as ``dataclasses`` writes ``__init__``): the names in it are this module's own, the
    keys and constants ``repr``'d from the schema :func:`build_schema` made."""
    source = _Source()
    source.lines += _sound_lines(source.expr(schema, "v"))
    exec("\n".join(source.lines), source.scope)  # our own schema, see above
    function = source.scope["sound"]
    function.__qualname__ = f"sound_{label}"
    return function  # type: ignore[no-any-return]


def _factory_lines(kind: str, schema: dict[str, Any]) -> list[str]:
    """``make_<kind>(_MISSING)``: the helpers and ``sound`` of one kind, nested in a function
    that returns ``sound`` (the constants its helpers name assigned first)."""
    source = _Source()
    top = source.expr(schema, "v")
    lines = [f"def make_{kind}(_MISSING):"]
    lines += [
        f"    {name} = {value!r}" for name, value in source.scope.items() if name != "_MISSING"
    ]
    lines += ["    " + line for line in [*source.lines, *_sound_lines(top)]]
    return [*lines, "    return sound"]


def _checked_lines(plan: tuple[Any, ...], schema: dict[str, Any], source: _Source) -> list[str]:
    """``checked_dict(self)`` of an event class: its ``to_dict`` (written from ``plan``, as
    :func:`tracer.trace.event_code.factory_source` writes it) that also answers the quick test
    of ``schema`` for the object it built, each value tested as it is put in (not looked up
    again in the finished object). Returns ``(object, sound)``.

    An event's fields are the base's ``seq``, ``turn`` and ``t`` (each with a default), then
    its own, those without a default first (:func:`_opening`): those are put in with the head
    in one dict display, which makes the object at its size in one step, and tested in one
    ``and`` chain (a key added and a branch a field, the object grown and resized as it went,
    cost a fifth of an import's writing). The fields after them, most of them left out when
    ``None``, are put in one at a time."""
    kind, stage, fields = plan
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    head = {"kind": kind, **({"stage": stage} if stage else {})}
    # What holds whatever the values are: the head's tests, and required keys never written.
    static = [source.expr(props[k], repr(v)) for k, v in head.items() if k in props]
    if required - set(head) - {name for name, _, _ in fields}:
        static = ["False"]
    # Answered here, once: constants against constants (a const or an enum).
    answer = all(eval(t, dict(source.scope)) for t in static)  # our own schema, see above
    defaulted, plain = _opening(fields)
    opening = [*defaulted, *plain]
    lines = ["def checked_dict(self):"]
    for name, _, scalar in opening:
        lines.append(f"    {name}_ = self.{name}")
        if not scalar:
            lines.append(f"    {name}_ = list({name}_) if isinstance({name}_, tuple) else {name}_")
    items = [*(f"{k!r}: {v!r}" for k, v in head.items()), *(f"{n!r}: {n}_" for n, _, _ in opening)]
    lines.append("    out = {" + ", ".join(items) + "}")
    if defaulted:  # a None is left out, as to_dict leaves it out (a written event has them all)
        names = tuple(name for name, _, _ in defaulted)
        kept = f"v is not None or k not in {names!r}"
        lines += [
            f"    if {' or '.join(f'{name}_ is None' for name in names)}:",
            f"        out = {{k: v for k, v in out.items() if {kept}}}",
        ]
    clauses = [] if answer else ["False"]
    for name, has_default, _ in opening:
        test = _opening_test(source, props.get(name), f"{name}_", has_default, name in required)
        if test is not None:
            clauses.append(test)
    if len(clauses) > 1:
        lines += ["    ok = (", f"        {clauses[0]}", *(f"        and {c}" for c in clauses[1:])]
        lines.append("    )")
    else:
        lines.append(f"    ok = {clauses[0] if clauses else True}")
    for name, has_default, scalar in fields[len(opening) :]:
        test = source.expr(props[name], "x") if name in props else "True"
        lines.append(f"    x = self.{name}")
        inner = [] if scalar else ["x = list(x) if isinstance(x, tuple) else x"]
        inner.append(f"out[{name!r}] = x")
        if test != "True":
            inner += [f"if not ({test}):", "    ok = False"]
        if has_default:  # a None is left out: then only a required key makes it unsound
            lines += ["    if x is not None:", *(f"        {line}" for line in inner)]
            if name in required:
                lines += ["    else:", "        ok = False"]
        else:
            lines += [f"    {line}" for line in inner]
    return [*lines, "    return out, ok"]


def _opening(fields: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """The fields :func:`_checked_lines` puts in with the head: the leading ones with a default
    (the base's ``seq``, ``turn`` and ``t``, which every written event has) and the run of
    fields without one after them (always written, a ``None`` as ``null``)."""
    at = 0
    while at < len(fields) and fields[at][1]:
        at += 1
    end = at
    while end < len(fields) and not fields[end][1]:
        end += 1
    return list(fields[:at]), list(fields[at:end])


def _opening_test(
    source: _Source, schema: dict[str, Any] | None, var: str, has_default: bool, required: bool
) -> str | None:
    """One clause of the opening fields' ``and`` chain (``None``: nothing to test). A field
    with a default is left out when ``None``: sound then only if the key is not required."""
    test = source.expr(schema, var) if schema is not None else "True"
    if not has_default:
        return None if test == "True" else test
    nullable = schema is None or _nullable(schema)
    if required:
        if test == "True":
            return f"{var} is not None"
        return f"({var} is not None and {test})" if nullable else test
    if test == "True" or nullable:
        return None if test == "True" else test
    return f"({var} is None or {test})"


def compile_checked(
    plan: tuple[Any, ...], schema: dict[str, Any], label: str = "event"
) -> Callable[[Any], tuple[dict[str, Any], bool]]:
    """:func:`_checked_lines` compiled now (a class or a schema changed since the module was
    generated)."""
    source = _Source()
    lines = _checked_lines(plan, schema, source)
    exec("\n".join([*source.lines, *lines]), source.scope)  # our own schema and fields
    function = source.scope["checked_dict"]
    function.__qualname__ = f"{label}.checked_dict"
    return function  # type: ignore[no-any-return]


def _checked_factory(name: str, plan: tuple[Any, ...], schema: dict[str, Any]) -> list[str]:
    """``make_checked_<name>(_MISSING)``, which returns the class's ``checked_dict``."""
    source = _Source()
    body = _checked_lines(plan, schema, source)
    lines = [f"def make_checked_{name}(_MISSING):"]
    lines += [f"    {key} = {value!r}" for key, value in source.scope.items() if key != "_MISSING"]
    lines += ["    " + line for line in [*source.lines, *body]]
    return [*lines, "    return checked_dict"]


def checked_for(
    name: str, plan: tuple[Any, ...], schema: dict[str, Any] | None
) -> Callable[[Any], tuple[dict[str, Any], bool]]:
    """The ``checked_dict`` of the event class ``name``: compiled ahead of time when it was
    written from this plan and from the kind's schema, else compiled now. ``schema`` is the
    kind's schema as ``schema.json`` has it, or ``None`` when the file is the very one
    :mod:`tracer.trace.event_sound` was written from (then nothing is parsed)."""
    from tracer.trace import event_sound

    kind = plan[0]
    if event_sound.CHECKED.get(name) == plan and (
        schema is None or _written_from().get(kind) == schema
    ):
        function = getattr(event_sound, f"make_checked_{name}")(_MISSING)
        function.__qualname__ = f"{name}.checked_dict"
        return function  # type: ignore[no-any-return]
    return compile_checked(plan, _written_from()[kind] if schema is None else schema, name)


def _sound_lines(top: str) -> list[str]:
    """``sound``: the top-level object's function itself when that is the test (no call
    through a wrapper on every line), else a function returning ``top``."""
    if top.endswith("(v)") and top[:-3].isidentifier():
        return [f"sound = {top[:-3]}"]
    return ["def sound(v):", f"    return {top}"]


def sound_module(source: bytes, plans: dict[str, tuple[Any, ...]] | None = None) -> str:
    """The text of :mod:`tracer.trace.event_sound` for ``schema.json``'s bytes and the event
    classes' ``plans`` (:func:`tracer.trace.event_code.event_plan`, by class name): the bytes
    themselves, the kinds of its ``$defs`` and each one's quick test, then each class's
    ``checked_dict``."""
    definitions = json.loads(source)["$defs"]
    parts = [
        '"""Generated by ``python -m tracer.cli.generate``: each line kind\'s quick soundness '
        "test,\nand each event class's to_dict that answers it as it builds the object, "
        "compiled ahead of time\n(see :mod:`tracer.trace.sound_code`). Do not edit."
        '"""\n\n# ruff: noqa\n# fmt: off\n\n'
        f"#: The schema.json they were written from.\nSCHEMA_JSON = {source!r}\n\n"
        f"KINDS = {tuple(definitions)!r}\nCHECKED = {{}}\n"
    ]
    for kind, schema in definitions.items():
        assert kind.isidentifier()
        parts.append("\n" + "\n".join(_factory_lines(kind, schema)) + "\n")
    for name, plan in (plans or {}).items():
        schema = definitions.get(plan[0])
        if schema is None or not name.isidentifier():
            continue  # a class no line kind is written from (the base Event)
        parts.append(f"\nCHECKED[{name!r}] = {plan!r}\n\n")
        parts.append("\n".join(_checked_factory(name, plan, schema)) + "\n")
    return "".join(parts)


def generated(kind: str) -> Callable[[Any], bool]:
    """The quick test of ``kind`` compiled ahead of time (``KeyError`` for a kind it does not
    know): the one to take while ``schema.json`` is the file it was written from."""
    from tracer.trace import event_sound

    if kind not in event_sound.KINDS:
        raise KeyError(kind)
    function = getattr(event_sound, f"make_{kind}")(_MISSING)
    function.__qualname__ = f"sound_{kind}"
    return function  # type: ignore[no-any-return]


@functools.cache
def _written_from() -> dict[str, Any]:
    """The ``$defs`` :mod:`tracer.trace.event_sound` was written from (parsed when a schema
    differs from the file's, so that each kind's is compared)."""
    from tracer.trace import event_sound

    return json.loads(event_sound.SCHEMA_JSON)["$defs"]  # type: ignore[no-any-return]


def sound_for(kind: str, schema: dict[str, Any]) -> Callable[[Any], bool]:
    """The quick test of ``kind``: compiled ahead of time when it was written from this schema,
    else compiled now."""
    if _written_from().get(kind) == schema:
        return generated(kind)
    return compile_sound(schema, kind)
