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


@functools.cache
def format_words() -> frozenset[str]:
    """Every fixed word of the trace format: event kinds, field names, the values of its
    enumerations, and the Messages API's own keys and types."""
    import typing

    from tracer.trace import events

    words: set[str] = set(_API_WORDS)
    for obj in vars(events).values():
        if dataclasses.is_dataclass(obj):
            words.update(f.name for f in dataclasses.fields(obj))
        if isinstance(obj, type) and isinstance(getattr(obj, "kind", None), str):
            words.add(obj.kind)
        if typing.get_origin(obj) is typing.Literal:
            words.update(str(arg) for arg in typing.get_args(obj))
        if isinstance(obj, type) and hasattr(obj, "__annotations__"):
            for hint in typing.get_type_hints(obj).values():
                if typing.get_origin(hint) is typing.Literal:
                    words.update(str(arg) for arg in typing.get_args(hint))
    return frozenset(words)
