"""Each event class's ``to_dict`` written out again, testing each value as it puts it in.

An import's writer does not look the keys of a line's object up again to test them:
:func:`tracer.trace.line_check.checked_for` gives each event class a ``checked_dict``, its
``to_dict`` written out again (from the same plan, :func:`tracer.trace.event_code.event_plan`)
with the kind's quick test (:mod:`tracer.trace.sound_code`) of each value put beside the line
that puts it in, answering ``(object, sound)``; the line check
(:meth:`~tracer.trace.line_check.LineCheck.object_of`) takes that answer instead of testing the
finished object. They are generated with the quick tests, in :mod:`tracer.trace.event_sound`
(:func:`sound_module` writes it; ``python -m tracer.cli.generate`` runs it), and a test keeps
them agreeing with them. This module is the code that writes them: the line check picks the
one written ahead of time itself, and loads this module only when one must be compiled now.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from tracer.trace.sound_code import Source, factory_lines, nullable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _checked_lines(plan: tuple[Any, ...], schema: dict[str, Any], source: Source) -> list[str]:
    """``checked_dict(self)`` of an event class: its ``to_dict`` (written from ``plan``, as
    :func:`tracer.trace.event_code.factory_source` writes it) that also answers the quick test
    of ``schema`` for the object it built, each value tested as it is put in (not looked up
    again in the finished object). Returns ``(object, sound)``.

    An event's fields are the base's ``seq``, ``turn`` and ``t`` (each with a default), then
    its own, those without a default first (:func:`_opening`): those are put in with the head
    in one dict display, which makes the object at its size in one step, and tested in one
    ``and`` chain (a key added and a branch a field, the object grown and resized as it went,
    cost 1.3M more instructions over a session of 2,480 events). The fields after them, most of
    them left out when ``None``, are put in one at a time."""
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
    source: Source, schema: dict[str, Any] | None, var: str, has_default: bool, required: bool
) -> str | None:
    """One clause of the opening fields' ``and`` chain (``None``: nothing to test). A field
    with a default is left out when ``None``: sound then only if the key is not required."""
    test = source.expr(schema, var) if schema is not None else "True"
    if not has_default:
        return None if test == "True" else test
    passes_none = schema is None or nullable(schema)
    if required:
        if test == "True":
            return f"{var} is not None"
        return f"({var} is not None and {test})" if passes_none else test
    if test == "True" or passes_none:
        return None if test == "True" else test
    return f"({var} is None or {test})"


def compile_checked(
    plan: tuple[Any, ...], schema: dict[str, Any], label: str = "event"
) -> Callable[[Any], tuple[dict[str, Any], bool]]:
    """:func:`_checked_lines` compiled now (a class or a schema changed since the module was
    generated)."""
    source = Source()
    lines = _checked_lines(plan, schema, source)
    exec("\n".join([*source.lines, *lines]), source.scope)  # our own schema and fields
    function = source.scope["checked_dict"]
    function.__qualname__ = f"{label}.checked_dict"
    return function


def _checked_factory(name: str, plan: tuple[Any, ...], schema: dict[str, Any]) -> list[str]:
    """``make_checked_<name>(_MISSING)``, which returns the class's ``checked_dict``."""
    source = Source()
    body = _checked_lines(plan, schema, source)
    lines = [f"def make_checked_{name}(_MISSING):"]
    lines += [f"    {key} = {value!r}" for key, value in source.scope.items() if key != "_MISSING"]
    lines += ["    " + line for line in [*source.lines, *body]]
    return [*lines, "    return checked_dict"]


def sound_module(source: bytes, plans: dict[str, tuple[Any, ...]] | None = None) -> str:
    """The text of :mod:`tracer.trace.event_sound` for ``schema.json``'s bytes and the event
    classes' ``plans`` (:func:`tracer.trace.event_code.event_plan`, by class name): the bytes
    themselves, the kinds of its ``$defs`` and each one's quick test, then each class's
    ``checked_dict``."""
    definitions = json.loads(source)["$defs"]
    parts = [
        '"""Generated by ``python -m tracer.cli.generate``: each line kind\'s quick soundness '
        "test,\nand each event class's to_dict that answers it as it builds the object, "
        "compiled ahead of time\n(see :mod:`tracer.trace.sound_code` and "
        ":mod:`tracer.trace.checked_code`). Do not edit."
        '"""\n\n# ruff: noqa\n# fmt: off\n\nfrom __future__ import annotations\n\n'
        f"#: The schema.json they were written from.\nSCHEMA_JSON = {source!r}\n\n"
        f"KINDS = {tuple(definitions)!r}\nCHECKED: dict[str, tuple[object, ...]] = {{}}\n"
    ]
    for kind, schema in definitions.items():
        assert kind.isidentifier()
        parts.append("\n" + "\n".join(factory_lines(kind, schema)) + "\n")
    for name, plan in (plans or {}).items():
        schema = definitions.get(plan[0])
        if schema is None or not name.isidentifier():
            continue  # a class no line kind is written from (the base Event)
        parts.append(f"\nCHECKED[{name!r}] = {plan!r}\n\n")
        parts.append("\n".join(_checked_factory(name, plan, schema)) + "\n")
    return "".join(parts)
