"""A trace as turns: the shared reading every export starts from.

Each :class:`Turn` holds the events of one pass through the loop, in file order, so an export
can name the stations in the order they happened. Events before the first turn (the session
step, the prompt's messages) and the messages every step points at are kept beside the turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.trace.events import STATIONS, MessageRecorded
from tracer.trace.reader import TraceReader
from tracer.trace.tokens import tokens_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import AnyEvent, ImportNote, SessionStarted

#: How each stage is named in an export; the four steps of the result's trip carry their number,
#: as in the chapter's 结果的旅途.
STAGE_NAMES = {
    "session": "session",
    "turn_start": "turn start",
    "resending": "④ resending",
    "response": "response",
    "follow_up": "follow-up decision",
    "permission": "permission",
    "tool_run": "tool run",
    "mapping": "① mapping",
    "wrapping": "② wrapping",
    "appending": "③ appending",
    "max_turns_check": "max-turns check",
    "terminal": "terminal",
}
assert all(stage in STAGE_NAMES for stage in STATIONS)


@dataclass
class Turn:
    number: int
    events: list[Any] = field(default_factory=list)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.kind == kind]


@dataclass
class Walk:
    """Everything an export needs: header, session step, turns and messages by uuid."""

    path: Path
    header: dict[str, Any]
    events: list[Any]
    turns: list[Turn]
    messages: dict[str, MessageRecorded]
    torn: str | None = None

    @property
    def session(self) -> SessionStarted | None:
        return next((e for e in self.events if e.kind == "session_start"), None)

    def stage_name(self, event: AnyEvent) -> str:
        return STAGE_NAMES.get(getattr(event, "stage", None) or "", event.kind)


def walk(path: str | Path) -> Walk:
    """Read a trace (bad input raises ``UserError``) and group its events by turn."""
    reader = TraceReader(path)
    try:
        events = list(reader)
        turns: list[Turn] = []
        for event in events:
            if event.kind == "turn_start" or (event.turn and not turns):
                turns.append(Turn(event.turn))
            if turns and event.kind != "session_start":
                turns[-1].events.append(event)
        messages = {e.uuid: e for e in events if isinstance(e, MessageRecorded)}
        return Walk(Path(path), reader.header, events, turns, messages, reader.torn_notice())
    finally:
        reader.close()


def note_of(event: ImportNote) -> tuple[str, str]:
    """An ``import_note``'s topic and text."""
    return str(event.topic), str(event.text)


def short(value: Any, width: int = 80) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(str(value).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def block_summary(block: dict[str, Any]) -> str:
    """A content block in a few words."""
    kind = block.get("type")
    if kind == "text":
        return f"text {short(block.get('text', ''), 60)!r}"
    if kind == "thinking":
        return f"thinking ({len(str(block.get('thinking', '')))} chars)"
    if kind == "tool_use":
        return f"tool_use {block.get('name')} {short(block.get('input'), 50)}"
    if kind == "tool_result":
        return f"tool_result for {block.get('tool_use_id')}"
    return str(kind)


def usage_totals(events: list[Any]) -> tuple[int, int]:
    """Input and output tokens over all responses (each response counted once)."""
    inp = out = 0
    for e in events:
        if e.kind == "response":
            counted = tokens_of(e.usage)  # the fields that are counts; None when none is
            if counted is not None:
                inp += counted.prompt
                out += counted.output
    return inp, out
