"""Helpers for the replay tests: a committed trace, a fixed chapter guide, and an app runner.

``fixtures/main-walk.trace.jsonl`` is the bundled main walk with its volatile values (times,
latencies, temporary paths) fixed, so SVG snapshots do not change from run to run;
``fixtures/01-result-not-returned.trace.jsonl`` is the first fault as it was recorded before the
loop patched requests like ``ensureToolResultPairing`` (the broken request went out, the API
refused it, the session ended ``model_error``): a trace with no patched request, as an older
recording or a bare-API loop leaves. It is fixed the same way (``t`` 0.0,
``created``/``timestamp`` 2026-01-01, ``latency_ms`` 25, ``duration_ms`` 3, the session's
temporary directory ``/tmp/tracer-session``). The snapshot
tests use :class:`StubGuide` rather than ``chapters/ch12/guide.yaml`` so that editing the guide's
prose does not redraw every picture; one Pilot test checks the real guide separately.
:func:`view` is a step's view as plain text, as the ``test_replay_render_*`` files read it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tracer.replay import factory
from tracer.replay.app import ReplayApp
from tracer.view.diagnose import Diagnosis
from tracer.view.render import render_step
from tracer.view.sections import Contents
from tracer.view.steps import StepIndex

FIXTURES = Path(__file__).parent / "fixtures"
MAIN_TRACE = FIXTURES / "main-walk.trace.jsonl"
FAULT_TRACE = FIXTURES / "01-result-not-returned.trace.jsonl"
SIZE = (120, 40)


@dataclass
class StubSection:
    id: str
    title: dict[str, str]
    notes: dict[str, str]
    stages: list[str]
    claude_code: dict[str, str] | None = None
    tracer: dict[str, str] | None = None
    fidelity: list[dict[str, str]] = field(default_factory=list)


@dataclass
class StubCheckpoint:
    id: str
    text: dict[str, str]
    stage: str
    scenario: str | None = None


class StubGuide:
    """The guide's interface (``section_for_stage``, ``stage_text``, ``checkpoints``), fixed."""

    def __init__(self) -> None:
        self.sections = [
            StubSection(
                "s1",
                {"zh": "第一站：结果长什么样", "en": "Station 1: a result"},
                {"zh": "原始输出变成 tool_result 块。", "en": "Raw output becomes a block."},
                ["tool_run", "mapping"],
                {"file": "src/services/tools/toolExecution.ts", "function": "addToolResult"},
                {"module": "tracer.agent.execution", "function": "add_tool_result"},
                [{"zh": "Bash 把 stderr 并进 stdout。", "en": "Bash merges stderr."}],
            ),
            StubSection(
                "s3",
                {"zh": "第三站：循环", "en": "Station 3: the loop"},
                {"zh": "每轮重发全部历史。", "en": "Every turn resends the history."},
                ["resending", "appending", "turn_start"],
                {"file": "src/query.ts", "function": "queryLoop"},
                {"module": "tracer.agent.loop", "function": "query_loop"},
            ),
        ]
        self.checkpoints = [
            StubCheckpoint(
                "cp-1", {"zh": "长度是 266。", "en": "Length is 266."}, "mapping", "01-main-walk"
            )
        ]

    def section_for_stage(self, stage: str) -> StubSection | None:
        return next((s for s in self.sections if stage in s.stages), None)

    def stage_text(self, stage: str, lang: str) -> str:
        return f"[{stage}:{lang}]"


def make_app(
    path: Path = MAIN_TRACE,
    *,
    step: int = 0,
    lang: str = "en",
    follow: bool = False,
    real_guide: bool = False,
    doctor: bool = False,
    diagnosis: Diagnosis | None = None,
    contents: Contents | None = None,
    feed: Callable[[], object] | None = None,
) -> ReplayApp:
    """The app as ``tracer replay`` builds it, at 0-based ``step``, with the stub guide unless
    ``real_guide``; ``diagnosis`` replaces what the doctor would find, ``contents`` the table of
    contents; ``feed`` is called before each ``--follow`` poll."""
    options = factory.ReplayOptions(
        step=step + 1 if step else None,
        lang=lang,
        follow=follow,
        doctor=doctor,
        diagnosis=diagnosis,
        contents=contents,
        feed=feed,
    )
    if not real_guide:
        options = replace(options, guide=StubGuide())  # type: ignore[arg-type] (a stand-in)
    app = factory.make_app(path, options)
    state = app.replay.state
    if not real_guide and state.recording.notes:
        # A fault scenario's notes, fixed like the guide: rewording them redraws no snapshot.
        state.recording = replace(
            state.recording, notes={"zh": "故意弄坏的地方。", "en": "What was broken."}
        )
    return app


def stub_diagnosis(path: Path) -> Diagnosis:
    """The doctor's findings for ``path`` with fixed words (message and hint), like
    :class:`StubGuide`: rewording the doctor or the guide does not redraw the snapshots."""
    from dataclasses import replace

    from tracer.view.diagnose import diagnose, marks_of

    found = diagnose(path)
    assert found.problem is None, found.problem
    findings = tuple(
        replace(
            f,
            message=f"[{f.rule} message]",
            hint={"zh": f"检查 {f.rule} 的提示。", "en": f"How to check {f.rule}."},
        )
        for f in found.findings
    )
    return Diagnosis(findings, None, marks_of(findings))


def drive(
    app: ReplayApp, script: Callable[[Any], Awaitable[None]], size: tuple[int, int] = SIZE
) -> None:
    """Run ``script(pilot)`` against ``app`` headless."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(main())


def visible_text(app: ReplayApp, selector: str) -> str:
    """The plain text a widget currently holds (all of it, not just what fits)."""
    from textual.widgets import Static

    from tracer.replay.widgets.debug_console import DebugConsole
    from tracer.replay.widgets.journey import JourneyStrip
    from tracer.replay.widgets.pager import Pager

    if selector in ("#stations", "#position"):
        strip = app.query_one(JourneyStrip)
        if selector == "#stations":
            return strip.stations.plain
        return (strip.place + strip.status + strip.position).plain  # the right-hand half
    if selector == "#chapter":  # two panels: this step, then the section
        return "\n".join(p.text.plain for p in app.query_one(selector).query(Pager))
    widget = app.query_one(selector)
    if isinstance(widget, DebugConsole) and widget.lines:
        return "\n".join(widget.lines)
    if isinstance(widget, Pager):
        return widget.text.plain
    assert isinstance(widget, Static)
    return str(widget.render())


def view(index: StepIndex, step: int, lang: str = "en") -> str:
    return render_step(index, step, lang).plain
