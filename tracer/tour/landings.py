"""Which checkpoints land on which step of a recording (the chapter panel names them there).

A guide checkpoint names a scenario, a stage and a turn; :func:`tracer.tour.checkpoints.
answer_step` finds the step that shows it in a trace. This collects them for one recording, once,
so the chapter panel can say "checkpoint: …" on the step that shows it. Pure; no Textual.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tracer.tour.checkpoints import NotInTrace, answer_step
from tracer.view.sections import RecordingInfo
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Guide


def checkpoint_landings(
    guide: Guide | None, recording: RecordingInfo, index: StepIndex
) -> dict[int, list[str]]:
    """Step (0-based) → ids of the guide's checkpoints that land there, in this recording."""
    found: dict[int, list[str]] = {}
    for checkpoint in getattr(guide, "checkpoints", []) or []:
        if getattr(checkpoint, "scenario", None) is None:
            continue
        if not recording.called(checkpoint.scenario):
            continue
        try:
            found.setdefault(answer_step(index, _full(checkpoint)), []).append(checkpoint.id)
        except NotInTrace:
            continue
    return found


def _full(checkpoint: Any) -> Any:
    """A checkpoint with the fields :func:`answer_step` reads (a test's stub may lack some)."""
    if hasattr(checkpoint, "turn") and hasattr(checkpoint, "nth"):
        return checkpoint
    return SimpleNamespace(
        id=checkpoint.id,
        stage=checkpoint.stage,
        turn=getattr(checkpoint, "turn", None),
        nth=getattr(checkpoint, "nth", 1),
        ask=getattr(checkpoint, "ask", None),
    )
