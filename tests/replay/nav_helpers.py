"""A small fixed guide for the navigation tests and snapshots (contents, tour).

Built from :mod:`tracer.chapter.guide`' own records, so it goes through the same code as the real
guide, but its words never change: rewording ``guide.yaml`` redraws none of these pictures. It
has the real guide's twelve section ids in the book's order, two anchors on the main walk, and
two checkpoints over it (a choice and a number).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_helpers import FAULT_TRACE, MAIN_TRACE

from tracer.chapter.guide import StageText
from tracer.chapter.guide_records import Anchor, Checkpoint, Guide, Section, Text
from tracer.tour.stops import Located, Tour, plan_stops, question_in
from tracer.trace.events import STAGES
from tracer.view.sections import Contents, bundled_contents

SECTION_IDS = [
    "roadmap",
    "source-entry",
    "station-1",
    "station-2",
    "errors",
    "station-3",
    "multi-turn",
    "journey",
    "common-errors",
    "try-it",
    "checkpoints",
    "next",
]
STAGE_SECTION = {
    "tool_run": "station-1",
    "mapping": "station-1",
    "permission": "station-2",
    "wrapping": "station-2",
    "max_turns_check": "multi-turn",
}
ROADMAP = (
    'graph LR\n  A["tool_run"] --> B["mapping"]\n  B --> C{"more?"}\n'
    '  C -- "yes" --> A\n  C -- "no" --> D["end"]'
)


def _stages_of(section_id: str) -> list[str]:
    if section_id == "station-3":
        return [s for s in STAGES if s not in STAGE_SECTION]
    if section_id == "errors":
        return ["tool_run", "mapping"]
    return [s for s, owner in STAGE_SECTION.items() if owner == section_id]


def nav_guide() -> Guide:
    sections = [
        Section(
            id=sid,
            title=Text({"zh": f"第 {n} 节", "en": f"Section {n}"}),
            notes=Text({"zh": f"第 {n} 节的说明。", "en": f"Notes of section {n}."}),
            stages=_stages_of(sid),
            claude_code=None,
            tracer=None,
            fidelity=[],
            mermaid=ROADMAP if sid == "roadmap" else None,
        )
        for n, sid in enumerate(SECTION_IDS, 1)
    ]
    stages = {
        s: StageText(
            STAGE_SECTION.get(s, "station-3"), Text({"zh": f"[{s}:zh]", "en": f"[{s}:en]"})
        )
        for s in STAGES
    }
    checkpoints = [
        Checkpoint(
            "loop-question",
            Text({"zh": "循环：每圈判断一次。", "en": "The loop: decided once a pass."}),
            "follow_up",
            "01-main-walk",
            turn=4,
            ask="needs_follow_up",
            question=Text({"zh": "会打印 true 还是 false？", "en": "Will it print true or false?"}),
        ),
        Checkpoint(
            "count-question",
            Text({"zh": "展开拼接：新列表。", "en": "Spreading: a new list."}),
            "appending",
            "01-main-walk",
            turn=1,
            ask="loop_turn",
            question=Text({"zh": "messages 后面是几？", "en": "What number follows messages:?"}),
        ),
    ]
    anchors = [
        Anchor("roadmap", "01-main-walk", None, ("session",)),
        Anchor("journey", "01-main-walk", None, ("terminal",)),
    ]
    return Guide(
        chapter="ch12",
        title=Text({"zh": "测试", "en": "test"}),
        sections=sections,
        stages=stages,
        checkpoints=checkpoints,
        common_errors=[],
        anchors=anchors,
    )


def nav_contents(guide: Guide | None = None) -> Contents:
    """The contents of the two fixture traces under the fixed guide."""
    return bundled_contents(guide or nav_guide(), [MAIN_TRACE, FAULT_TRACE])


def fixture_question(checkpoint: Any) -> Located | None:
    return question_in(MAIN_TRACE, checkpoint)


def nav_tour(state: Path, guide: Guide | None = None) -> Tour:
    """A tour over the fixture traces, saving its progress in ``state``."""
    from tracer.tour.stops import load_progress

    guide = guide or nav_guide()
    stops = plan_stops(guide, nav_contents(guide), fixture_question)
    return Tour(stops, load_progress(state), state)
