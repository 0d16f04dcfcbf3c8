"""The chapter guide: what each section of chapter 12 teaches, and where to watch it happen.

``chapters/<chapter>/guide.yaml`` is the bridge between the book and a trace. For every section of
the chapter it gives our notes in Chinese and English, the step kinds (stages) the section
explains, the Claude Code function the chapter points at and the tracer function that plays the
same part, and fidelity notes where Claude Code 2.1.88 differs from the book. It also gives one
paragraph per stage (what the replay shows beside a step), the chapter's checkpoints (each with
the step that shows it and, for ``tracer tour``, a question whose answer the trace gives), its
table of common errors (each with the rule id that ``tracer doctor`` checks) and its anchors
(steps of a recording that illustrate a section, see :mod:`tracer.replay.sections`). Beside it,
``glossary.yaml`` holds the book's words that every zh string is checked against
(:mod:`tracer.glossary`).

:func:`load_guide` reads and checks the file. A guide with a mistake is bad input like any other:
a :class:`~tracer.errors.UserError` naming the key and ``file:line``. This module imports nothing
heavy (no SDK, no Textual), so the replay can load it freely.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.glossary import maybe_glossary
from tracer.paths import CHAPTERS_DIR
from tracer.trace.events import STAGES
from tracer.yamlfile import YamlMap, YamlSeq, line_of, load_yaml

LANGS = ("zh", "en")
SEVERITIES = ("error", "warning")
DEFAULT_CHAPTER = "ch12"
#: What a checkpoint can ask the reader to predict (answers computed in
#: :mod:`tracer.replay.checkpoints`).
ASK_KINDS = (
    "tool_use_id",
    "api_user_messages",
    "loop_turn",
    "content_blocks",
    "is_error",
    "needs_follow_up",
    "max_turns_stop",
)
_RULE_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


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
    :mod:`tracer.replay.checkpoints`, which computes the answer from the trace), ``question`` is
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
    glossary: Any = None
    """The book's words (:class:`tracer.glossary.Glossary`), from ``glossary.yaml`` beside."""
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


# -- checking ----------------------------------------------------------------------------------


class _Check:
    """Typed reads from the parsed file; every failure names the key path and its line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str, node: Any = None, key: str | None = None) -> UserError:
        return UserError(f"{where}: {message}", self.path, line_of(node, key))

    def mapping(
        self,
        node: Any,
        where: str,
        required: set[str],
        optional: frozenset[str] | set[str] = frozenset(),
        parent: Any = None,
        key: str | None = None,
    ) -> YamlMap:
        if not isinstance(node, YamlMap):
            raise self.fail(where, "must be a mapping", parent, key)
        for name in node:
            if name not in required | optional:
                raise self.fail(
                    f"{where}.{name}",
                    f"unknown key (allowed: {', '.join(sorted(required | optional))})",
                    node,
                    name,
                )
        for name in sorted(required):
            if name not in node:
                raise self.fail(f"{where}.{name}", "missing", node)
        return node

    def string(self, node: YamlMap, key: str, where: str) -> str:
        value = node[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{where}.{key}", "must be a non-empty string", node, key)
        return value

    def text_value(
        self, value: Any, where: str, parent: Any = None, key: str | None = None
    ) -> Text:
        m = self.mapping(value, where, set(LANGS), parent=parent, key=key)
        return Text({lang: self.string(m, lang, where) for lang in LANGS})

    def text(self, node: YamlMap, key: str, where: str) -> Text:
        return self.text_value(node[key], f"{where}.{key}", node, key)

    def sequence(self, node: YamlMap, key: str, where: str) -> YamlSeq:
        value = node[key]
        if not isinstance(value, YamlSeq):
            raise self.fail(f"{where}.{key}", "must be a list", node, key)
        return value

    def stage(self, node: YamlMap, key: str, where: str) -> str:
        value = self.string(node, key, where)
        if value not in STAGES:
            raise self.fail(
                f"{where}.{key}",
                f"unknown stage {value!r} (stages: {', '.join(STAGES)})",
                node,
                key,
            )
        return value


def _section(c: _Check, node: Any, where: str, parent: YamlSeq) -> Section:
    m = c.mapping(
        node,
        where,
        {"id", "title", "notes", "stages", "claude_code", "tracer", "fidelity", "mermaid"},
        optional={"mermaid_zh"},
        parent=parent,
    )
    stages_node = c.sequence(m, "stages", where)
    stages = []
    for i, stage in enumerate(stages_node):
        if not isinstance(stage, str) or stage not in STAGES:
            raise c.fail(f"{where}.stages[{i}]", f"unknown stage {stage!r}", m, "stages")
        stages.append(stage)
    claude_code = tracer = None
    if m["claude_code"] is not None:
        cc = c.mapping(
            m["claude_code"],
            f"{where}.claude_code",
            {"file", "function"},
            parent=m,
            key="claude_code",
        )
        claude_code = ClaudeCodeAnchor(
            c.string(cc, "file", f"{where}.claude_code"),
            c.string(cc, "function", f"{where}.claude_code"),
        )
    if m["tracer"] is not None:
        tr = c.mapping(
            m["tracer"], f"{where}.tracer", {"module", "function"}, parent=m, key="tracer"
        )
        tracer = TracerAnchor(
            c.string(tr, "module", f"{where}.tracer"), c.string(tr, "function", f"{where}.tracer")
        )
    fidelity_node = c.sequence(m, "fidelity", where)
    fidelity = [
        c.text_value(note, f"{where}.fidelity[{i}]", fidelity_node)
        for i, note in enumerate(fidelity_node)
    ]
    diagrams: dict[str, str | None] = {}
    for key in ("mermaid", "mermaid_zh"):
        source = m.get(key)
        if source is not None:
            source = c.string(m, key, where)
            if not source.lstrip().startswith(("graph ", "flowchart ")):
                raise c.fail(
                    f"{where}.{key}",
                    "must start with a Mermaid graph header such as 'graph LR'",
                    m,
                    key,
                )
        diagrams[key] = source
    return Section(
        id=c.string(m, "id", where),
        title=c.text(m, "title", where),
        notes=c.text(m, "notes", where),
        stages=stages,
        claude_code=claude_code,
        tracer=tracer,
        fidelity=fidelity,
        **diagrams,
    )


def _parse(doc: Any, path: Path) -> Guide:
    c = _Check(path)
    top = c.mapping(
        doc,
        "guide",
        {"chapter", "title", "sections", "stages", "checkpoints", "common_errors"},
        {"anchors"},
    )
    sections: list[Section] = []
    node = c.sequence(top, "sections", "guide")
    for i, item in enumerate(node):
        section = _section(c, item, f"sections[{i}]", node)
        if any(s.id == section.id for s in sections):
            raise c.fail(f"sections[{i}].id", f"duplicate section id {section.id!r}", item, "id")
        sections.append(section)
    ids = {s.id for s in sections}

    stages_node = c.mapping(top["stages"], "stages", set(STAGES), parent=top, key="stages")
    stages: dict[str, StageText] = {}
    for stage in STAGES:
        where = f"stages.{stage}"
        entry = c.mapping(
            stages_node[stage], where, {"section", *LANGS}, parent=stages_node, key=stage
        )
        section_id = c.string(entry, "section", where)
        if section_id not in ids:
            raise c.fail(f"{where}.section", f"no section with id {section_id!r}", entry, "section")
        stages[stage] = StageText(
            section_id, Text({lang: c.string(entry, lang, where) for lang in LANGS})
        )

    checkpoints: list[Checkpoint] = []
    node = c.sequence(top, "checkpoints", "guide")
    scenarios_dir = path.parent / "scenarios"
    for i, item in enumerate(node):
        where = f"checkpoints[{i}]"
        m = c.mapping(
            item,
            where,
            {"id", "text", "stage", "scenario"},
            {"turn", "nth", "ask", "question"},
            parent=node,
        )
        scenario = c.string(m, "scenario", where)
        if not (scenarios_dir / f"{scenario}.yaml").is_file():
            raise c.fail(
                f"{where}.scenario",
                f"no scenario {scenario}.yaml in {scenarios_dir.name}/",
                m,
                "scenario",
            )
        turn = _count(c, m, "turn", where, None)
        nth = _count(c, m, "nth", where, 1)
        ask = c.string(m, "ask", where) if m.get("ask") is not None else None
        if ask is not None and ask not in ASK_KINDS:
            raise c.fail(
                f"{where}.ask",
                f"unknown question kind {ask!r} (kinds: {', '.join(ASK_KINDS)})",
                m,
                "ask",
            )
        question = c.text(m, "question", where) if m.get("question") is not None else None
        if (ask is None) != (question is None):
            raise c.fail(where, "ask and question go together", m, "ask" if ask else None)
        checkpoints.append(
            Checkpoint(
                c.string(m, "id", where),
                c.text(m, "text", where),
                c.stage(m, "stage", where),
                scenario,
                turn,
                nth if nth is not None else 1,
                ask,
                question,
            )
        )

    anchors: list[Anchor] = []
    node = top.get("anchors")
    if node is not None:
        node = c.sequence(top, "anchors", "guide")
        for i, item in enumerate(node):
            where = f"anchors[{i}]"
            m = c.mapping(item, where, {"section", "recording"}, {"turn", "stages"}, parent=node)
            section_id = c.string(m, "section", where)
            if section_id not in ids:
                raise c.fail(f"{where}.section", f"no section with id {section_id!r}", m, "section")
            stages_node = c.sequence(m, "stages", where) if "stages" in m else []
            for stage in stages_node:
                if not isinstance(stage, str) or stage not in STAGES:
                    raise c.fail(f"{where}.stages", f"unknown stage {stage!r}", m, "stages")
            anchors.append(
                Anchor(
                    section_id,
                    c.string(m, "recording", where),
                    _count(c, m, "turn", where, None),
                    tuple(stages_node),
                )
            )

    errors: list[CommonError] = []
    node = c.sequence(top, "common_errors", "guide")
    for i, item in enumerate(node):
        where = f"common_errors[{i}]"
        m = c.mapping(item, where, {"rule", "symptom", "check", "severity"}, {"stage"}, parent=node)
        rule = c.string(m, "rule", where)
        if not _RULE_ID.match(rule) or any(e.rule == rule for e in errors):
            raise c.fail(
                f"{where}.rule", f"rule id {rule!r} must be unique and kebab-case", m, "rule"
            )
        severity = c.string(m, "severity", where)
        if severity not in SEVERITIES:
            raise c.fail(
                f"{where}.severity", f"must be error or warning, not {severity!r}", m, "severity"
            )
        stage = c.stage(m, "stage", where) if m.get("stage") is not None else None
        errors.append(
            CommonError(
                rule, c.text(m, "symptom", where), c.text(m, "check", where), severity, stage
            )
        )

    return Guide(
        chapter=c.string(top, "chapter", "guide"),
        title=c.text(top, "title", "guide"),
        sections=sections,
        stages=stages,
        checkpoints=checkpoints,
        common_errors=errors,
        path=path,
        anchors=anchors,
        glossary=maybe_glossary(path),
    )


def _count(c: _Check, m: YamlMap, key: str, where: str, default: int | None) -> int | None:
    """An optional whole number of at least 1 (a turn, an occurrence)."""
    value = m.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise c.fail(f"{where}.{key}", "must be a whole number of at least 1", m, key)
    return value


def guide_path(chapter: str = DEFAULT_CHAPTER) -> Path:
    return CHAPTERS_DIR / chapter / "guide.yaml"


def load_guide(path: str | Path | None = None) -> Guide:
    """Read and check a guide (the bundled chapter 12 guide by default)."""
    path = Path(path) if path is not None else guide_path()
    doc = load_yaml(path)
    return _parse(doc, path)


__all__ = ["LANGS", "Anchor", "Checkpoint", "CommonError", "Guide", "Section", "Text", "load_guide"]
