"""The trace format's ground: its name and version, its stages, the header and the base event.

:mod:`tracer.trace.events` is the vocabulary every reader and writer imports; this module holds
what all its records stand on: the format's name and version, the step kinds (``STAGES``) and
the four stations of a result's trip (``STATIONS``), the :class:`Header` of line 1, and
:class:`Event`, the fields every event shares. The events themselves are in
:mod:`tracer.trace.event_records` (supporting records) and :mod:`tracer.trace.event_steps`
(the steps of the journey).
"""

from __future__ import annotations

from collections.abc import Callable

from tracer.trace.event_class import frozen_event, lean_dataclass
from tracer.trace.event_code import called_new, compile_to_dict

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no import needs it
    from typing import Any, ClassVar, Literal, Self

    Stage = Literal[
        "session",
        "turn_start",
        "resending",
        "response",
        "follow_up",
        "permission",
        "tool_run",
        "mapping",
        "wrapping",
        "max_turns_check",
        "appending",
        "terminal",
    ]
    EndReason = Literal[
        "completed", "max_turns", "model_error", "aborted_tools", "aborted_streaming"
    ]

FORMAT = "tracer"
VERSION = 1

#: Fields whose values change from run to run of the same scenario. Comparisons drop them, and the
#: header lists them so that other tools can too.
VOLATILE_FIELDS = ("t", "created", "timestamp", "duration_ms", "latency_ms", "sha256")

STAGES: tuple[str, ...] = (
    "session",
    "turn_start",
    "resending",
    "response",
    "follow_up",
    "permission",
    "tool_run",
    "mapping",
    "wrapping",
    "max_turns_check",
    "appending",
    "terminal",
)
"""Every step kind, in the order a turn meets them (query.ts checks max_turns before it builds
the next State, so ``max_turns_check`` comes before ``appending``): the values of ``Stage``,
the ``Literal`` the type checker reads above (``tests/trace/test_events.py`` keeps them
equal)."""
STATIONS = ("mapping", "wrapping", "appending", "resending")
"""The four steps of a result's trip (the book's 结果的旅途: 翻译, 包装, 追加, 重新发送)."""

END_REASONS: tuple[str, ...] = (
    "completed",
    "max_turns",
    "model_error",
    "aborted_tools",
    "aborted_streaming",
)
"""Why a session ended: the values of ``EndReason``."""


def __getattr__(name: str) -> Any:
    """``Stage`` and ``EndReason`` at run time, made from their values on first use: each is a
    ``typing.Literal``, and importing ``typing`` costs 12M instructions no import needs."""
    values = {"Stage": STAGES, "EndReason": END_REASONS}.get(name)
    if values is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    made = globals()[name] = Literal[values]
    return made


@lean_dataclass(frozen=True, slots=True)
class Header:
    """Line 1 of every trace: what the file is and where it came from."""

    created: str
    """ISO-8601 time the recording started (volatile)."""
    source: dict[str, Any]
    """Where the session came from: ``{"kind": "scenario" | "model" | "import", ...}``."""
    tracer_version: str
    chapter: str | None = "ch12"
    paths: dict[str, str] | None = None
    """Temporary paths of the session (``workspace``, ``tool_results``); comparisons replace
    each with ``<name>``, since they differ from run to run."""
    volatile: tuple[str, ...] = VOLATILE_FIELDS
    format: str = FORMAT
    version: int = VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "version": self.version,
            "tracer_version": self.tracer_version,
            "created": self.created,
            "source": self.source,
            "chapter": self.chapter,
            "paths": self.paths,
            "volatile": list(self.volatile),
        }


_TO_DICT: dict[type, Callable[[Any], dict[str, Any]]] = {}
"""``to_dict`` of event classes defined elsewhere (tests); those here get their own, below."""


@frozen_event
class Event:
    """Fields every event shares. Subclasses add their own and fix ``kind``."""

    kind: ClassVar[str] = ""
    stage: ClassVar[str | None] = None
    seq: int = 0
    """Position in the file, from 1; assigned by the writer."""
    turn: int = 0
    """The loop's ``turn_count`` when the event happened (0 before the loop starts)."""
    t: float = 0.0
    """Seconds since the session started (volatile)."""
    if TYPE_CHECKING:  # given by event_code.install; typed as the class, whose call it is
        new: ClassVar[type[Self]]

    def __init_subclass__(cls) -> None:
        # The ``new`` install() writes is a plain function of its class, which a subclass would
        # inherit and use to make an instance of its parent: each subclass starts with one that
        # calls the class itself, until install() writes its own. (No super(): the class this
        # body made is replaced by its slotted copy, and object's hook does nothing.)
        cls.new = called_new

    def to_dict(self) -> dict[str, Any]:
        """This event as JSON data: ``kind`` and ``stage`` first, ``None`` fields left out."""
        convert = _TO_DICT.get(type(self))
        if convert is None:  # written once per class
            convert = _TO_DICT[type(self)] = compile_to_dict(type(self))
        return convert(self)
