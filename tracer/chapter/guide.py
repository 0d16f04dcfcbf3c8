"""The chapter guide: what each section of chapter 12 teaches, and where to watch it happen.

``chapters/<chapter>/guide.yaml`` is the bridge between the book and a trace. For every section of
the chapter it gives our notes in Chinese and English, the step kinds (stages) the section
explains, the Claude Code function the chapter points at and the tracer function that plays the
same part, and fidelity notes where Claude Code 2.1.88 differs from the book. It also gives one
paragraph per stage (what the replay shows beside a step), the chapter's checkpoints (each with
the step that shows it and, for ``tracer tour``, a question whose answer the trace gives), its
table of common errors (each with the rule id that ``tracer doctor`` checks) and its anchors
(steps of a recording that illustrate a section, see :mod:`tracer.view.sections`). Beside it,
``glossary.yaml`` holds the book's words that every zh string is checked against
(:mod:`tracer.chapter.glossary`); ``differences.yaml`` the differences from 2.1.88 that are left
(:mod:`tracer.chapter.differences`).

:func:`load_guide` reads and checks the file, part by part, into the records of
:mod:`tracer.chapter.guide_records`. A guide with a mistake is bad input like any other: a
:class:`~tracer.errors.UserError` naming the key and ``file:line``
(:mod:`tracer.chapter.guide_checks`). This module imports nothing heavy (no SDK, no Textual), so
the replay can load it freely.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tracer.chapter.differences import maybe_differences
from tracer.chapter.glossary import maybe_glossary
from tracer.chapter.guide_checks import GuideChecker, count
from tracer.chapter.guide_records import (
    LANGS,
    Anchor,
    Checkpoint,
    ClaudeCodeAnchor,
    CommonError,
    Guide,
    Section,
    StageText,
    Text,
    TracerAnchor,
)
from tracer.files.paths import CHAPTERS_DIR
from tracer.files.yamlfile import YamlMap, YamlSeq, load_yaml
from tracer.trace.events import STAGES

SEVERITIES = ("error", "warning")
DEFAULT_CHAPTER = "ch12"
#: What a checkpoint can ask the reader to predict (answers computed in
#: :mod:`tracer.tour.checkpoints`).
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


def _section(c: GuideChecker, node: Any, where: str, parent: YamlSeq) -> Section:
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
    c = GuideChecker(path)
    top = c.mapping(
        doc,
        "guide",
        {"chapter", "title", "sections", "stages", "checkpoints", "common_errors"},
        {"anchors"},
    )
    sections = _sections(c, top)
    ids = {s.id for s in sections}
    stages = _stages(c, top, ids)
    checkpoints = _checkpoints(c, top, path.parent / "scenarios")
    anchors = _anchors(c, top, ids)
    errors = _common_errors(c, top)
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
        differences=maybe_differences(path),
    )


def _sections(c: GuideChecker, top: YamlMap) -> list[Section]:
    sections: list[Section] = []
    node = c.sequence(top, "sections", "guide")
    for i, item in enumerate(node):
        section = _section(c, item, f"sections[{i}]", node)
        if any(s.id == section.id for s in sections):
            raise c.fail(f"sections[{i}].id", f"duplicate section id {section.id!r}", item, "id")
        sections.append(section)
    return sections


def _stages(c: GuideChecker, top: YamlMap, ids: set[str]) -> dict[str, StageText]:
    """One paragraph per step kind, and the section that explains it: every stage has one."""
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
    return stages


def _checkpoints(c: GuideChecker, top: YamlMap, scenarios_dir: Path) -> list[Checkpoint]:
    """The chapter's checkpoints, each naming a bundled scenario that shows it."""
    checkpoints: list[Checkpoint] = []
    node = c.sequence(top, "checkpoints", "guide")
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
        turn = count(c, m, "turn", where, None)
        nth = count(c, m, "nth", where, 1)
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
    return checkpoints


def _anchors(c: GuideChecker, top: YamlMap, ids: set[str]) -> list[Anchor]:
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
                    count(c, m, "turn", where, None),
                    tuple(stages_node),
                )
            )
    return anchors


def _common_errors(c: GuideChecker, top: YamlMap) -> list[CommonError]:
    """The chapter's table of common errors, each with the doctor's rule id."""
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
    return errors


def guide_path(chapter: str = DEFAULT_CHAPTER) -> Path:
    return CHAPTERS_DIR / chapter / "guide.yaml"


def load_guide(path: str | Path | None = None) -> Guide:
    """Read and check a guide (the bundled chapter 12 guide by default)."""
    path = Path(path) if path is not None else guide_path()
    doc = load_yaml(path)
    return _parse(doc, path)


__all__ = [
    "load_guide",
]
