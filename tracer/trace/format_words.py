"""The fixed words of the trace format, which redaction never rewrites.

A redactor replaces secrets in a trace's string values, but some strings are the format itself:
an event's kind (``tool_finished``), a field's name, an enumeration's value (``completed``),
the Messages API's own keys and types (``tool_result``). Rewriting one of those would make a
trace that no longer validates, so :class:`~tracer.trace.redact.Redactor` leaves every string
listed here as it is. The list is read off :mod:`tracer.trace.events`, so a new event or field
is covered without being added by hand.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re

#: Words of the Messages API that a trace holds as keys or fixed values.
_API_WORDS = frozenset(
    {
        "user",
        "assistant",
        "role",
        "content",
        "type",
        "text",
        "tool_use",
        "tool_result",
        "tool_use_id",
        "thinking",
        "signature",
        "id",
        "name",
        "input",
        "is_error",
        "model",
        "stop_reason",
        "end_turn",
        "usage",
        "input_tokens",
        "output_tokens",
        "messages",
        "system",
        "tools",
        "max_tokens",
        "stdout",
        "stderr",
    }
)


#: A ``Literal[...]`` in an annotation (kept as a string: every module uses postponed
#: annotations), and a quoted word inside one.
_LITERAL = re.compile(r"Literal\[([^\]]*)\]")
_QUOTED = re.compile(r"""["']([^"']*)["']""")


def _literal_words(annotation: object) -> list[str]:
    """The values of every ``Literal`` an annotation names, read off its text: evaluating it
    (``typing.get_type_hints``) would compile every annotation of every event class, a few
    milliseconds at the start of every import. A name of a ``Literal`` defined elsewhere
    (``EndReason``) is covered by its values' own tuple in :mod:`tracer.trace.events`
    (``END_REASONS``)."""
    if not isinstance(annotation, str):
        import typing

        return [str(arg) for arg in typing.get_args(annotation)]
    return [w for inner in _LITERAL.findall(annotation) for w in _QUOTED.findall(inner)]


@functools.cache
def format_words() -> frozenset[str]:
    """Every fixed word of the trace format: event kinds, field names, the values of its
    enumerations, and the Messages API's own keys and types."""
    import typing

    from tracer.trace import events

    words: set[str] = set(_API_WORDS)
    words.update(events.STAGES, events.END_REASONS)  # the values of Stage and EndReason
    for obj in vars(events).values():
        if dataclasses.is_dataclass(obj):
            words.update(f.name for f in dataclasses.fields(obj))
        if isinstance(obj, type) and isinstance(getattr(obj, "kind", None), str):
            words.add(obj.kind)  # type: ignore[attr-defined]  # asked just above, by getattr
        if typing.get_origin(obj) is typing.Literal:
            words.update(str(arg) for arg in typing.get_args(obj))
        if isinstance(obj, type):
            for klass in obj.__mro__:
                for annotation in inspect.get_annotations(klass).values():
                    words.update(_literal_words(annotation))
    return frozenset(words)
