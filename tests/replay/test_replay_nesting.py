"""Stepping over, into and out of a subagent's nested loop (Enter / Esc), with the pure logic in
:mod:`tracer.view.nesting` tested on its own first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replay_helpers import drive, make_app, visible_text

from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.view.nesting import Nesting
from tracer.view.steps import StepIndex

SOURCE = Path(__file__).parents[1] / "data" / "claude-code" / "v1.0-inline-sidechain.jsonl"


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    out = tmp_path / "t.jsonl"
    import_claude_code(SOURCE, out)
    return out


def _stages(index: StepIndex) -> list[str]:
    return [index.stage(s) for s in range(len(index))]


def test_depths_step_over_into_and_out(trace: Path) -> None:
    index = StepIndex(TraceReader(trace))
    nesting = Nesting(index)
    depths = [nesting.depth(s) for s in range(len(index))]
    asks = _stages(index).index("follow_up")  # the main loop asks for the Task here
    assert depths[: asks + 1] == [0] * (asks + 1) and depths[asks + 1] == 1
    result = next(s for s in range(asks + 1, len(index)) if depths[s] == 0)
    assert index.event(result).kind == "tool_run" and index.event(result).tool == "Task"
    # Step over: from the call straight to its result, and back.
    assert nesting.step_over(asks, 1) == result
    assert nesting.step_over(result, -1) == asks
    # Into: from the call, or from its result; out: back at the result.
    assert nesting.enter(asks) == asks + 1 == nesting.enter(result)
    assert index.event(asks + 1).kind == "session_start"
    inner_last = result - 1
    assert nesting.leave(inner_last) == result == nesting.leave(asks + 3)
    # Inside, stepping stays inside until the subagent's last step, then comes back out.
    assert nesting.step_over(asks + 1, 1) == asks + 2
    assert nesting.step_over(inner_last, 1) == result
    assert nesting.leave(asks) is None and nesting.enter(0) is None
    assert nesting.loop_of(asks + 2).tool_use_id == "toolu_i1"


def test_the_path_names_the_loops_around_a_step(trace: Path) -> None:
    index = StepIndex(TraceReader(trace))
    nesting = Nesting(index)
    asks = _stages(index).index("follow_up")
    inner = nesting.loop_of(asks + 2)
    assert inner is not None and inner.loop
    assert nesting.path(asks) == [] == nesting.path(0)  # the main loop: no subagent around it
    assert nesting.path(asks + 2) == [inner.loop]


def test_enter_and_escape_in_the_replay(trace: Path) -> None:
    app = make_app(trace)
    index = StepIndex(TraceReader(trace))
    asks = _stages(index).index("follow_up")

    async def script(pilot: Any) -> None:
        for _ in range(asks):
            await pilot.press("right")
        assert app.replay.step == asks
        await pilot.press("right")  # step over the whole subagent
        assert index.event(app.replay.step).kind == "tool_run" and "subagent" not in visible_text(
            app, "#position"
        )
        await pilot.press("enter")  # step into it from the Task's result
        assert index.event(app.replay.step).kind == "session_start"
        assert "inside subagent toolu_i1 (depth 1)" in visible_text(app, "#position")
        await pilot.press("l", "l")
        assert index.stage(app.replay.step) == "resending"
        await pilot.press("escape")  # back to the parent, at the Task's result
        assert (
            index.event(app.replay.step).kind == "tool_run"
            and index.event(app.replay.step).tool == "Task"
        )
        assert "subagent" not in visible_text(app, "#position")

    drive(app, script)


def test_the_task_step_says_that_i_goes_into_the_subagents_loop(trace: Path) -> None:
    app = make_app(trace)
    index = StepIndex(TraceReader(trace))
    nesting = Nesting(index)
    asks = _stages(index).index("follow_up")
    result = nesting.step_over(asks, 1)
    inside = result - asks - 1  # the subagent's steps that → steps over
    seen: dict[int, str] = {}

    async def script(pilot: Any) -> None:
        for step in (asks - 1, asks, asks + 1, result, result + 1):
            app.replay.go(step)
            await pilot.pause()
            seen[step] = visible_text(app, "#stage")

    drive(app, script)
    for step in (asks, result):
        first = seen[step].splitlines()[0]
        assert first.startswith("↳ this Task ran a subagent: i goes into its loop")
        assert f"({inside} steps, which → skips)" in first
    for step in (asks - 1, asks + 1, result + 1):
        assert "Task ran a subagent" not in seen[step]


def test_no_imported_step_shows_pythons_none(trace: Path, tmp_path: Path) -> None:
    """A transcript without a stop_reason, an exit code or a file's line counts shows the
    trace's null, in both languages, never Python's None."""
    import re

    from tracer.view.render import render_step

    sources = [SOURCE, SOURCE.with_name("v1.0-local-commands.jsonl")]
    for number, source in enumerate(sources):
        out = tmp_path / f"{number}.jsonl"
        import_claude_code(source, out)
        index = StepIndex(TraceReader(out))
        for step in range(len(index)):
            for lang in ("en", "zh"):
                text = render_step(index, step, lang).plain
                assert not re.search(r"\bNone\b", text), (source.name, step, lang)
    index = StepIndex(TraceReader(trace))
    response = _stages(index).index("response")
    assert "stop_reason: null (none)" in render_step(index, response, "en").plain
    assert "stop_reason：null（无）" in render_step(index, response, "zh").plain
    from tracer.cli.show import show_lines

    shown = list(show_lines(TraceReader(trace)))
    assert any("stop_reason null," in line for line in shown)
    assert not any(re.search(r"\bNone\b", line) for line in shown)
