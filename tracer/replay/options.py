"""What a replay starts from: one typed, frozen object from the command line (or a test) to the
screen.

``tracer replay``'s flags, ``tracer tour``'s plan and a test's fixtures all reach the app as one
:class:`ReplayOptions`: :func:`tracer.replay.factory.make_app` reads the position fields
(``step``, ``turn``, ``stage``) to find the first step, fills in ``lang`` from the locale, and
hands the object on to :class:`~tracer.replay.app.ReplayApp`, whose screen
(:class:`~tracer.replay.screen.ReplayScreen`) reads the rest. A field a caller leaves out keeps
its default, so a test names only what it fixes: ``make_app(trace, ReplayOptions(lang="en"))``.

This module imports nothing at run time (the types are for the reader and the type checker), so
the command line can build the object before Textual is loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from tracer.chapter.guide_records import Guide
    from tracer.tour.stops import Tour
    from tracer.view.diagnose import Diagnosis
    from tracer.view.sections import Contents


class LoadGuide(Enum):
    """The one value of :data:`LOAD_GUIDE`."""

    LOAD = "load"

    def __repr__(self) -> str:
        return "LOAD_GUIDE"


LOAD_GUIDE: Final = LoadGuide.LOAD
"""The default ``guide``: read ``chapters/ch12/guide.yaml`` when the screen is built (a broken
guide is then shown as a problem in the chapter panel, not raised)."""


@dataclass(frozen=True)
class ReplayOptions:
    """The replay's start-up state; every field has the default ``tracer replay`` uses."""

    step: int | None = None
    """1-based, as ``--step N`` and ``tracer show`` count (None: the first step, or the end)."""
    turn: int | None = None
    """Start at the first step of this turn (with ``stage``: of that stage in it)."""
    stage: str | None = None
    """Start at the first step of this stage (in ``turn``, if given)."""
    lang: str | None = None
    """``zh`` or ``en``; None follows the locale."""
    follow: bool = False
    """``--follow``: open at the last step written so far and keep to the end as it grows."""
    doctor: bool = False
    """``--doctor``: open the findings panel and start at the first finding (unless a position
    is given)."""
    guide: Guide | Literal[LoadGuide.LOAD] | None = LOAD_GUIDE
    """The chapter's guide (None: none at all; tests give a fixed one)."""
    tour: Tour | None = None
    """The guided tour to walk (:func:`tracer.replay.factory.make_tour_app`)."""
    diagnosis: Diagnosis | None = None
    """The doctor's findings, if already known (the tests give their own)."""
    feed: Callable[[], object] | None = None
    """Called before each ``--follow`` poll (the live import of a Claude Code transcript)."""
    contents: Contents | None = None
    """The chapter's table of contents, if already worked out (the tests give theirs)."""

    @property
    def positioned(self) -> bool:
        """Whether a starting position was asked for (then ``--doctor`` does not move it)."""
        return self.step is not None or self.turn is not None or self.stage is not None
