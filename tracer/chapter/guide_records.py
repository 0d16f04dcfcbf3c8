"""What a chapter guide holds, once read and checked: sections, stage texts, checkpoints.

These are the records :func:`tracer.chapter.guide.load_guide` returns (see there for the file).
Every text comes in both languages (:class:`Text`), and every record can be read as ``record.field``
or ``record["field"]`` alike. A :class:`Section` points both ways: at the Claude Code function
the chapter is about (:class:`ClaudeCodeAnchor`, a ``src/...`` path and a function name) and at
the tracer function that plays the same part (:class:`TracerAnchor`). This module imports
nothing heavy, so the replay can load it freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.glossary import Glossary

LANGS = ("zh", "en")


class Text(dict[str, str]):
    """A text in both languages: ``text["zh"]`` or ``text.zh`` alike."""

    def __getattr__(self, lang: str) -> str:
        try:
            return self[lang]
        except KeyError:
            raise AttributeError(lang) from None


class _Record:
    """Lets a record be read as ``record.field`` or ``record["field"]``."""

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


@dataclass(frozen=True, slots=True)
class ClaudeCodeAnchor(_Record):
    """Where the chapter points in Claude Code's source (``src/...`` path, function name)."""

    file: str
    function: str


@dataclass(frozen=True, slots=True)
class TracerAnchor(_Record):
    """The tracer function that plays the same part: a module and a (dotted) attribute in it."""

    module: str
    function: str

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.function}"


@dataclass(frozen=True, slots=True)
class Section(_Record):
    id: str
    title: Text
    notes: Text
    stages: list[str]
    claude_code: ClaudeCodeAnchor | None
    tracer: TracerAnchor | None
    fidelity: list[Text]
    mermaid: str | None
    mermaid_zh: str | None = None
    """The same diagram with Chinese labels (same nodes and edges); None: use ``mermaid``."""

    def diagram(self, lang: str) -> str | None:
        """The section's Mermaid source in ``lang``."""
        return (self.mermaid_zh if lang == "zh" else None) or self.mermaid


@dataclass(frozen=True, slots=True)
class StageText(_Record):
    section: str
    text: Text


@dataclass(frozen=True, slots=True)
class Checkpoint(_Record):
    """One of the chapter's checkpoints and the step that shows it.

    The step is the ``nth`` step of ``stage`` (in ``turn``, when given) of the scenario's
    recording. ``ask`` names what the tour asks the reader to predict there (see
    :mod:`tracer.tour.checkpoints`, which computes the answer from the trace), ``question`` is
    how it is asked and ``text`` the explanation shown after the answer.
    """

    id: str
    text: Text
    stage: str
    scenario: str
    turn: int | None = None
    nth: int = 1
    ask: str | None = None
    question: Text | None = None


@dataclass(frozen=True, slots=True)
class Anchor(_Record):
    """A place where a step illustrates a section the step's kind alone would not name.

    It matches the steps of one recording (short name such as ``02-error-path`` or
    ``faults/01-result-not-returned``), in ``turn`` when given, whose stage is in ``stages`` (any
    stage when the list is empty).
    """

    section: str
    recording: str
    turn: int | None
    stages: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CommonError(_Record):
    rule: str
    symptom: Text
    check: Text
    severity: str
    stage: str | None


@dataclass(frozen=True)
class Guide:
    chapter: str
    title: Text
    sections: list[Section]
    stages: dict[str, StageText]
    checkpoints: list[Checkpoint]
    common_errors: list[CommonError]
    path: Path | None = None
    anchors: list[Anchor] = field(default_factory=list)
    glossary: Glossary | None = None
    """The book's words (:class:`tracer.chapter.glossary.Glossary`), from ``glossary.yaml``
    beside."""
    differences: tuple[Any, ...] = ()
    """Where tracer still differs from 2.1.88 (:class:`tracer.chapter.differences.Difference`), from
    ``differences.yaml`` beside."""
    _by_id: dict[str, Section] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update((s.id, s) for s in self.sections)

    def section(self, key: str) -> Section | None:
        """A section by id, or by its title in either language (scenarios name the zh title)."""
        found = self._by_id.get(key)
        if found is not None:
            return found
        return next((s for s in self.sections if key in s.title.values()), None)

    def section_for_stage(self, stage: str) -> Section | None:
        """The section that explains a step kind (``None`` for a stage the guide does not know)."""
        entry = self.stages.get(stage)
        return self._by_id.get(entry.section) if entry else None

    def stage_text(self, stage: str, lang: str) -> str:
        """One paragraph about a step kind, in ``zh`` or ``en`` (empty for an unknown stage)."""
        if lang not in LANGS:
            raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
        entry = self.stages.get(stage)
        return entry.text[lang] if entry else ""

    def rule(self, rule_id: str) -> CommonError | None:
        return next((e for e in self.common_errors if e.rule == rule_id), None)
