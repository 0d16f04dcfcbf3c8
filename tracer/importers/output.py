"""What an import writes besides the steps: its report, and the session's own times.

* :class:`ImportReport` counts what was imported and what was skipped, for the stderr summary and
  the trace header (an import never drops data silently);
* :func:`epoch_of` and :func:`created_at` date an import by the session it describes, not by the
  moment the import ran (the trace writer keeps those times with ``keep_time=True``);
* :func:`collector_paused` keeps Python's cycle collector out of an import's way.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import field
from datetime import UTC, datetime

from tracer.trace.event_class import lean_dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block without the cycle collector, then give it back as it was.

    An import builds one big tree of parsed records and keeps all of it until the trace is
    written. Every few hundred new objects the collector would walk the young ones, and now and
    then all of them, only to find nothing: parsed JSON holds no cycles, and what the import
    throws away is freed at once by reference counting. Those walks were about a twentieth of
    an import's time. Whatever cycle the block does leave is found by the next collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def epoch_of(stamp: Any) -> float | None:
    """Seconds since 1970 from an ISO-8601 string or a number; ``None`` when unreadable."""
    # Text first: nearly every stamp an import reads is ISO text.
    if isinstance(stamp, str):
        # Each timestamp is read several times per import (a message, its tool's duration, ...),
        # so the answer is kept. A plain dict and not ``lru_cache``: its wrapper costs more per
        # call than the look-up itself, and this runs for every message and every tool result.
        epoch = _EPOCHS.get(stamp, _UNSEEN)
        if epoch is _UNSEEN:
            epoch = _epoch_of_text(stamp) if stamp else None
            if len(_EPOCHS) >= _EPOCHS_MAX:
                _EPOCHS.clear()  # bounded: a long-running process forgets, then starts again
            _EPOCHS[stamp] = epoch
        return epoch  # type: ignore[return-value]
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return float(stamp)
    return None


_EPOCHS: dict[str, float | None] = {}
_EPOCHS_MAX = 8192
_UNSEEN = object()


def _epoch_of_text(stamp: str) -> float | None:
    # Python 3.11 reads the "Z" of UTC itself: spelling it "+00:00" first cost a fifth of
    # reading a stamp, once per message. Only a text it refuses is read the old way too (a
    # date alone with a "Z" is one), so that every stamp reads as it always did.
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        if "Z" not in stamp:
            return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def created_at(epoch: float | None) -> str:
    """The header's ``created``: when the imported session began (now, if the source is undated)."""
    when = datetime.fromtimestamp(epoch, UTC) if epoch is not None else datetime.now(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@lean_dataclass
class ImportReport:
    """What an import did and what it left out, for the stderr summary and the header."""

    source: str
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    source_thread: str = ""
    """Which conversation of an API log this import holds (``thread 2``), when it holds many."""
    unreadable: list[str] = field(default_factory=list)
    """What the readers would refuse in the trace written (``line N: ...``), asked as each line
    was written (:class:`~tracer.trace.line_check.LineCheck`); empty when every command opens
    it."""

    def skip(self, what: str, n: int = 1) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + n

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def summary(self) -> list[str]:
        done = ", ".join(f"{v} {_number(k, v)}" for k, v in self.counts.items())
        lines = [f"imported {self.source}: {done}"]
        if self.skipped:
            left = ", ".join(f"{v} {k}" for k, v in sorted(self.skipped.items()))
            lines.append(f"skipped: {left}")
        lines += [f"note: {n}" for n in self.notes]
        if self.unreadable:
            lines.append(f"error: {self.unreadable_text()}")
        return lines

    def unreadable_text(self) -> str:
        """One line: the trace written is one the readers refuse, and the first reason."""
        return (
            f"the trace written does not pass validate ({len(self.unreadable)} problem(s), "
            f"first: {self.unreadable[0]}): show, doctor and the exports would refuse it; "
            "this is a fault of tracer's importer"
        )


def _number(what: str, n: int) -> str:
    """``what`` (a plural: "tool results") for ``n`` things: "1 tool result", "2 tool results";
    a note in brackets stays as it is ("1 subagent link (inline)")."""
    head, bracket, note = what.partition(" (")
    if n == 1 and head.endswith("s"):
        head = head[:-1]
    return head + bracket + note
