"""A long session: indexing in chunks, the first frame before the rest, steps deep inside.

The trace is the benchmark's synthetic one (the main walk's turn 2 repeated), at 300 turns: big
enough to need several indexing chunks, small enough to make in a moment.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from replay_helpers import drive, visible_text

from tracer.files.paths import ROOT
from tracer.replay import factory
from tracer.trace.reader import TraceReader
from tracer.view.cursor import locate
from tracer.view.render import render_step
from tracer.view.steps import FIRST_CHUNK, StepIndex

TURNS = 300


@pytest.fixture(scope="module")
def long_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = importlib.util.spec_from_file_location(
        "replay_latency", ROOT / "bench" / "replay_latency.py"
    )
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.make_big_trace(tmp_path_factory.mktemp("long") / "long.trace.jsonl", TURNS)


def test_a_lazy_index_starts_with_one_chunk_and_grows_to_the_same_steps(long_trace: Path) -> None:
    full = StepIndex(TraceReader(long_trace))
    lazy = StepIndex(TraceReader(long_trace), eager=False)
    assert not lazy.complete and len(lazy) < len(full)
    assert lazy._scanned == FIRST_CHUNK
    while not lazy.complete:
        lazy.extend(500)
    assert len(lazy) == len(full) == 10 * TURNS - 4
    assert list(lazy.positions) == list(full.positions)
    assert list(lazy.group_starts) == list(full.group_starts)
    assert lazy.turn(len(lazy) - 1) == TURNS


def test_locate_indexes_only_as_far_as_it_must(long_trace: Path) -> None:
    index = StepIndex(TraceReader(long_trace), eager=False)
    step = locate(index, turn=50, stage="mapping")  # within the first chunk
    assert index.turn(step) == 50 and index.stage(step) == "mapping"
    assert not index.complete
    assert locate(index, step=len(StepIndex(TraceReader(long_trace)))) > step
    assert index.complete


def test_the_app_indexes_the_rest_after_the_first_frame(long_trace: Path) -> None:
    app = factory.make_app(long_trace, factory.ReplayOptions(lang="en", guide=None))
    index = app.replay.index
    assert not index.complete  # only the first chunk before the first frame
    total = 10 * TURNS - 4

    async def script(pilot: Any) -> None:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert index.complete and not app.replay.loader.indexing
        assert f"step 1/{total}" in visible_text(app, "#position")
        await pilot.press("greater_than_sign")
        assert app.replay.step == total - 1
        assert "reason: completed" in visible_text(app, "#stage")

    drive(app, script)


def test_a_step_deep_in_the_session_renders_from_nearby_records(long_trace: Path) -> None:
    index = StepIndex(TraceReader(long_trace))
    resend = render_step(index, locate(index, turn=200, stage="resending"), "en").plain
    assert "same 397 messages as request 199 (folded; o: unfold)" in resend
    assert "398. assistant" in resend and "399. user" in resend
    assert "requests 1…200" in resend  # the growth chart samples every request so far
    assert "(missing)" not in resend  # the tail's messages were found by looking back
    appended = render_step(index, locate(index, turn=200, stage="appending"), "en").plain
    assert "messages: 799 → 803" in appended and "(not found)" not in appended


def test_the_timeline_shows_a_window_of_turns(long_trace: Path) -> None:
    index = StepIndex(TraceReader(long_trace))
    app = factory.make_app(
        long_trace, factory.ReplayOptions(turn=150, stage="mapping", lang="en", guide=None)
    )

    async def script(pilot: Any) -> None:
        timeline = app.query_one("Timeline")
        rows = timeline._current_rows()
        assert len(rows) <= timeline.content_size.height
        headings = [index.turn(r.step) for r in rows if r.heading]
        assert 150 in headings and min(headings) > 100 and max(headings) < 200
        await pilot.press("]")
        assert index.turn(app.replay.step) == 151

    drive(app, script)


def test_the_reader_finds_the_lines_after_the_first_frame_too(long_trace: Path) -> None:
    """Opened by the replay, the reader finds only the first megabyte's lines before the first
    frame (a 50 MB trace need not be scanned whole to show step 1); the rest comes with the
    background indexing, to the same lines a full reader finds, and meanwhile nothing says the
    session is incomplete or runs the doctor on part of it."""
    from tracer.replay.widgets.findings_panel import FindingsPanel

    full = TraceReader(long_trace)
    app = factory.make_app(long_trace, factory.ReplayOptions(lang="en", guide=None))
    reader = app.replay.index.reader
    assert not reader.scanned_all and 0 < len(reader) < len(full)
    assert abs(reader.estimated_events() - len(full)) < len(full) // 5
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        seen["notice"] = app.query_one("#notice").has_class("shown")
        panel = app.replay.query_one(FindingsPanel)
        # Checked already ("now": a trace this size may be) only once the reader has it all.
        seen["doctor"] = panel.state == "checking" or (
            panel.diagnosis is not None and reader.scanned_all
        )
        await app.workers.wait_for_complete()
        await pilot.pause()

    drive(app, script)
    assert seen["notice"] is False and seen["doctor"]
    assert reader.scanned_all and list(reader._offsets) == list(full._offsets)
    assert reader.torn_line is None and reader.complete


def test_each_requests_step_is_the_first_resending_step_that_sent_it(long_trace: Path) -> None:
    index = StepIndex(TraceReader(long_trace))
    first: dict[int, int] = {}
    for step in index.by_stage["resending"]:
        first.setdefault(index.event(step).request_index, step)
    assert len(first) == TURNS
    assert all(index.request_step(number) == step for number, step in first.items())
    assert index.request_step(TURNS + 1) is None
