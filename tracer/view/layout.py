"""Which panels fit the terminal: the step view first, the rest as room allows.

A reader often keeps the book on one half of the screen and the replay on the other, so 80 or 100
columns is the normal case, not the odd one. The rule, as in lazygit and posting: the step view
always gets the most room. Wide screens (``WIDE`` columns or more) show the timeline and the
chapter panel beside it, each a fraction of the width (``replay.tcss``); narrower ones fold both
away behind keys (``T`` and ``c``), and then show at most one of them at a time, like tabs, so the
step view keeps about ``MIN_STAGE`` columns. Short screens (under ``TALL`` rows) fold the debug
console the same way (``D``).

Pure: the app asks :func:`plan` after every resize and every toggle, and applies the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

#: From this width on, the timeline and the chapter panel sit beside the step view.
WIDE = 110
#: From this height on, the debug console sits under the step view.
TALL = 30
#: The fewest columns the step view keeps when a side panel is shown on a narrow screen.
MIN_STAGE = 44


@dataclass(frozen=True, slots=True)
class Wishes:
    """What the reader asked for with the toggle keys; None: the default for the size."""

    timeline: bool | None = None
    chapter: bool | None = None
    debug: bool | None = None
    last: str = ""
    """The side panel toggled last: on a narrow screen it wins over the other one."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What to show: each panel on or off, and whether the screen counts as narrow."""

    timeline: bool
    chapter: bool
    debug: bool
    narrow: bool


def plan(width: int, height: int, wishes: Wishes) -> Plan:
    """The panels to show at ``width`` x ``height`` given the reader's wishes."""
    narrow = width < WIDE
    timeline = wishes.timeline if wishes.timeline is not None else not narrow
    chapter = wishes.chapter if wishes.chapter is not None else not narrow
    if narrow and timeline and chapter:  # one side panel at a time: the newest wish wins
        if wishes.last == "timeline":
            chapter = False
        else:
            timeline = False
    # On a short screen the step view takes the debug console's rows.
    debug = wishes.debug if wishes.debug is not None else height >= TALL
    return Plan(timeline, chapter, debug, narrow)


def toggled(wishes: Wishes, panel: str, shown_now: bool) -> Wishes:
    """The wishes after the toggle key for ``panel`` was pressed while it was ``shown_now``."""
    values = {"timeline": wishes.timeline, "chapter": wishes.chapter, "debug": wishes.debug}
    values[panel] = not shown_now
    last = panel if panel in ("timeline", "chapter") else wishes.last
    return Wishes(values["timeline"], values["chapter"], values["debug"], last)
