"""Which section of chapter 12 a step belongs to, and which steps show each section.

The chapter has twelve sections (``chapters/ch12/guide.yaml``), but a step's kind names only the
five that explain a stage (the three stations, the errors and the turn limit). The others (the
roadmap, where the code starts, the journey, the table of common errors, trying it yourself, the
checkpoints, what comes next) are about the whole trip, so the guide says where a step
illustrates them. A step's section comes from, in order:

1. an **anchor** in the guide that names the step's recording, turn and stage (the first step of
   the main walk shows the roadmap; the failed input check of ``02-error-path`` shows the
   errors section);
2. the **scenario's** ``section:``, for the stages that section lists (a section that lists no
   stage, such as the table of common errors on a fault recording, covers every step), unless an
   anchor already says exactly where that recording shows it;
3. the **stage's** own section (``stages:`` in the guide).

:func:`table_of_contents` runs the same rule over every bundled recording, so the table of
contents (key ``s``) and the guided tour (``tracer tour``) offer exactly the steps the chapter
panel will explain. It plays the part the book's own table of contents plays beside the code:
Claude Code has nothing like it; the replay's timeline mirrors ``query.ts``'s turns.

Pure: no Textual. A recording's scenario is read from the ``source.path`` in its header, only
for its ``section`` and ``notes`` keys (a fault scenario's notes say what was broken on purpose,
another scenario's what it shows) and whether it has ``faults:``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tracer.files.paths import ROOT, short_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the guide is loaded lazily (tracer.view.section_text.load_guide)
    from tracer.chapter.guide_records import Anchor, Guide, Section

How = Literal["anchor", "scenario", "stage"]


@dataclass(frozen=True)
class RecordingInfo:
    """What the section rule needs to know about one recording."""

    name: str
    """Short name: ``01-main-walk`` or ``faults/01-result-not-returned``."""
    scenario: str | None = None
    """The scenario's own name (``source.name`` in the header)."""
    section: str | None = None
    """The scenario's ``section:`` as written (a section id or its title in either language)."""
    notes: dict[str, str] = field(default_factory=dict)
    """The scenario's notes: for a fault, what was broken on purpose and how it shows; for any
    other scenario, what it shows."""
    path: Path | None = None
    breaks: bool = False
    """The scenario has a ``faults:`` key: something in it is broken on purpose."""

    @property
    def fault(self) -> bool:
        """A fault recording: bundled under ``faults/`` or played from a scenario with
        ``faults:``. Notes alone do not make one (scenarios 10–13 have notes too)."""
        return self.name.startswith("faults/") or self.breaks

    def called(self, name: str) -> bool:
        """Whether ``name`` (as an anchor or a checkpoint writes it) means this recording."""
        name = name.removesuffix(".yaml")
        return name in (self.name, self.scenario) or self.name.endswith(f"/{name}")


def recording_info(path: Path, header: dict[str, Any]) -> RecordingInfo:
    """The recording at ``path`` with its header: name, scenario, section and notes."""
    source = header.get("source") if isinstance(header, dict) else None
    source = source if isinstance(source, dict) else {}
    scenario = source.get("name") if isinstance(source.get("name"), str) else None
    section: str | None = None
    notes: dict[str, str] = {}
    breaks = False
    where = source.get("path")
    if isinstance(where, str) and source.get("kind") == "scenario":
        section, notes, breaks = _scenario_keys(ROOT / where)
    return RecordingInfo(short_name(path), scenario, section, notes, path, breaks)


def _scenario_keys(path: Path) -> tuple[str | None, dict[str, str], bool]:
    """A scenario's ``section``, ``notes`` and whether it breaks something on purpose, or
    nothing if it cannot be read (no error: the replay shows a trace whose scenario has since
    moved or changed)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None, {}, False
    return _scenario_keys_at(path, stamp)


@functools.lru_cache(maxsize=64)
def _scenario_keys_at(path: Path, stamp: int) -> tuple[str | None, dict[str, str], bool]:
    """Parsing YAML is most of the table of contents' cost: each version of a file once."""
    try:
        from tracer.files.yamlfile import load_yaml

        doc = load_yaml(path)
    except Exception:  # a missing or broken scenario only costs the panel its notes
        return None, {}, False
    if not isinstance(doc, dict):
        return None, {}, False
    section = doc.get("section") if isinstance(doc.get("section"), str) else None
    raw = doc.get("notes")
    notes = (
        {str(k): str(v) for k, v in raw.items() if isinstance(v, str)}
        if isinstance(raw, dict)
        else {}
    )
    return section, notes, bool(doc.get("faults"))


# -- the rule ----------------------------------------------------------------------------------


def _anchors(guide: Guide) -> Sequence[Anchor]:
    return getattr(guide, "anchors", None) or ()


def _anchor_matches(anchor: Anchor, rec: RecordingInfo, stage: str, turn: int) -> bool:
    return (
        rec.called(anchor.recording)
        and (anchor.turn is None or anchor.turn == turn)
        and (not anchor.stages or stage in anchor.stages)
    )


def section_for_step(
    guide: Guide | None, rec: RecordingInfo, stage: str, turn: int
) -> tuple[Section | None, How | None]:
    """The guide's section for a step of ``rec`` (by stage and turn), and which rule chose it."""
    if guide is None:
        return None, None
    by_key = getattr(guide, "section", None)  # a guide without it knows stages only
    for anchor in _anchors(guide):
        if by_key is not None and _anchor_matches(anchor, rec, stage, turn):
            found = by_key(anchor.section)
            if found is not None:
                return found, "anchor"
    if rec.section is not None and by_key is not None:
        own = by_key(rec.section)
        pinned = own is not None and any(
            a.section == own.id and rec.called(a.recording) for a in _anchors(guide)
        )
        if own is not None and not pinned and (not own.stages or stage in own.stages):
            return own, "scenario"
    found = guide.section_for_stage(stage)
    return found, ("stage" if found is not None else None)


# -- the table of contents ---------------------------------------------------------------------


@dataclass
class Entry:
    """One recording under one section: the steps (0-based) that show it there."""

    recording: RecordingInfo
    steps: list[int]
    featured: bool
    """Chosen by an anchor or by the scenario, not only by the step's kind."""
    anchored: list[int] = field(default_factory=list)
    """The steps an anchor in the guide chose (the places the guide points at)."""

    @property
    def first(self) -> int:
        """Where to open the recording for this section: the first anchored step, if any."""
        return self.anchored[0] if self.anchored else self.steps[0]

    def ranges(self) -> list[tuple[int, int]]:
        """The steps as 1-based inclusive ranges: ``[(3, 5), (10, 10)]``."""
        out: list[tuple[int, int]] = []
        for step in self.steps:
            n = step + 1
            if out and out[-1][1] == n - 1:
                out[-1] = (out[-1][0], n)
            else:
                out.append((n, n))
        return out


@dataclass
class Contents:
    """The sections in the book's order, each with the recordings and steps that show it."""

    sections: list[Section]
    entries: dict[str, list[Entry]]

    def of(self, section_id: str) -> list[Entry]:
        return self.entries.get(section_id, [])

    def first_stop(self, section_id: str) -> Entry | None:
        """Where to open a section: the recording an anchor points at, else the first one whose
        scenario is about it, else the first that shows it at all."""
        entries = self.of(section_id)
        return entries[0] if entries else None


def entries_of(
    guide: Guide | None, rec: RecordingInfo, steps: Iterable[tuple[str, int]]
) -> dict[str, Entry]:
    """Section id → entry, for each section some step of ``rec`` shows (``steps``: each step's
    stage and turn, in order)."""
    found: dict[str, Entry] = {}
    for number, (stage, turn) in enumerate(steps):
        section, how = section_for_step(guide, rec, stage, turn)
        if section is None:
            continue
        entry = found.setdefault(section.id, Entry(rec, [], False))
        entry.steps.append(number)
        entry.featured = entry.featured or how != "stage"
        if how == "anchor":
            entry.anchored.append(number)
    return found


def table_of_contents(
    guide: Guide, recordings: Iterable[tuple[RecordingInfo, Sequence[tuple[str, int]]]]
) -> Contents:
    """The contents over ``recordings`` (each with its steps' stage and turn).

    Under each section: recordings an anchor points at first, then those whose scenario is
    about the section, then the rest, each group in the order given.
    """
    entries: dict[str, list[Entry]] = {s.id: [] for s in guide.sections}
    for rec, steps in recordings:
        for section_id, entry in entries_of(guide, rec, steps).items():
            entries.setdefault(section_id, []).append(entry)
    for section_id, listed in entries.items():
        entries[section_id] = sorted(listed, key=lambda e: (not e.anchored, not e.featured))
    return Contents(list(guide.sections), entries)


def bundled_contents(guide: Guide, paths: Iterable[Path] | None = None) -> Contents:
    """The table of contents over the bundled recordings (or ``paths``)."""
    from tracer.files.paths import bundled_recordings
    from tracer.trace.reader import TraceReader
    from tracer.view.steps import StepIndex

    listed = []
    for path in bundled_recordings() if paths is None else paths:
        reader = TraceReader(path)
        index = StepIndex(reader)
        steps = [(index.stage(i), index.turn(i)) for i in range(len(index))]
        listed.append((recording_info(path, reader.header), steps))
    return table_of_contents(guide, listed)


__all__ = [
    "Contents",
    "Entry",
    "RecordingInfo",
    "bundled_contents",
    "entries_of",
    "recording_info",
    "section_for_step",
    "table_of_contents",
]
