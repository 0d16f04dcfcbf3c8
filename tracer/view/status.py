"""The status words on the right of the journey strip: following, indexing, checking, playing,
and which subagent's loop the cursor is in; and the line a Task step opens with, saying that
``i`` goes into the loop its subagent ran. Pure: the app passes what it knows."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tracer.text.cells import clip
from tracer.view.i18n import tr

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.view.nesting import Loop


@dataclass(frozen=True)
class Activity:
    """What the replay is doing besides showing a step (the facts :func:`status_line` words)."""

    following: bool = False
    """``--follow``: keeping to the end of a file still being written."""
    indexing: bool = False
    """The rest of the trace is still being indexed in the background."""
    checking: bool = False
    """The doctor is checking the trace in the background."""
    playing: float | None = None
    """Autoplay's steps a second while it plays (None: paused)."""


def status_line(
    lang: str,
    *,
    following: bool = False,
    ended: bool = False,
    indexing: bool = False,
    checking: bool = False,
    playing: float | None = None,
    loop: Loop | None = None,
) -> str:
    """The words joined by " · " (empty when there is nothing to say)."""
    parts = []
    if following:
        parts.append(tr("ended" if ended else "following", lang))
    if indexing:
        parts.append(tr("indexing", lang))
    if checking:
        parts.append(tr("doctor_checking", lang))
    if playing is not None:
        parts.append(tr("playing", lang, speed=f"{playing:g}"))
    if loop is not None:
        parts.append(tr("in_subagent", lang, loop=clip(loop.loop, 14), depth=loop.depth))
    return " · ".join(parts)


def subagent_note(inner: tuple[int, int] | None, lang: str) -> Text | None:
    """The Task step's first line when its subagent's loop is in the trace (``inner``: its
    first step and how many steps it has): → steps over that loop silently, so say so."""
    if inner is None:
        return None
    return Text(tr("subagent_here", lang, n=inner[1]) + "\n\n", style="bold #e8d44d")
