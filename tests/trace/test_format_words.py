"""The format's fixed words (which redaction leaves alone) are read off the event classes'
annotations as text; they are exactly the words evaluating those annotations gives."""

from __future__ import annotations

import dataclasses
import typing

from tracer.trace import events
from tracer.trace.format_words import _API_WORDS, format_words
from tracer.trace.schema_build import annotation_names


def _evaluated() -> frozenset[str]:
    """The words as ``typing.get_type_hints`` finds them (every annotation evaluated)."""
    words = set(_API_WORDS)
    # The two Literal aliases are made on first use (typing is not imported at run time).
    for obj in [*vars(events).values(), events.Stage, events.EndReason]:
        if dataclasses.is_dataclass(obj):
            words.update(f.name for f in dataclasses.fields(obj))
        if isinstance(obj, type) and isinstance(getattr(obj, "kind", None), str):
            words.add(obj.kind)
        if typing.get_origin(obj) is typing.Literal:
            words.update(str(arg) for arg in typing.get_args(obj))
        if isinstance(obj, type) and hasattr(obj, "__annotations__"):
            for hint in typing.get_type_hints(obj, localns=annotation_names()).values():
                if typing.get_origin(hint) is typing.Literal:
                    words.update(str(arg) for arg in typing.get_args(hint))
    return frozenset(words)


def test_the_words_read_off_the_annotations_are_those_evaluating_them_gives() -> None:
    words = format_words()
    assert words == _evaluated()
    # an inline Literal (MessageRecorded.type), an alias's (EndReason), a kind, a field
    assert {"attachment", "max_turns", "tool_run", "tool_use_result_seq"} <= words
