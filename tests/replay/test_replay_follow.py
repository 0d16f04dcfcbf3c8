"""``--follow``: a trace written while the app runs shows up step by step."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from replay_helpers import MAIN_TRACE, drive, make_app, visible_text

#: Upper bound on how long to wait for the app to notice new lines (it polls every 0.25 s).
#: A bound for a wait, not a timed assertion: the test passes as soon as the step appears.
PATIENCE = 10.0


async def wait_for(condition: Any, pilot: Any) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while not condition():
        if loop.time() > deadline:
            return False
        await pilot.pause(0.05)
    return True


def test_follow_shows_steps_as_they_are_written(tmp_path: Path) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "live.trace.jsonl"
    path.write_text("".join(lines[:12]), encoding="utf-8")
    app = make_app(path, follow=True)

    async def script(pilot: Any) -> None:
        first = len(app.replay.index)
        await pilot.press("greater_than_sign")
        assert "following" in visible_text(app, "#position")
        # The recorder writes the rest, a line at a time, one of them in two pieces.
        with path.open("a", encoding="utf-8") as out:
            out.write(lines[12][:25])
            out.flush()
            await pilot.pause(0.3)
            assert app.query_one("#notice").has_class("shown") is False  # a live write, not torn
            out.write(lines[12][25:])
            for line in lines[13:]:
                out.write(line)
                out.flush()
        assert await wait_for(
            lambda: app.replay.index.event(len(app.replay.index) - 1).kind == "terminal", pilot
        )
        assert len(app.replay.index) > first
        assert (
            app.replay.step == len(app.replay.index) - 1
        )  # we were at the end, so we stay at the end
        assert "reason: completed" in visible_text(app, "#stage")
        assert f"/{len(app.replay.index)}" in visible_text(app, "#position")
        assert app.replay.index.reader.torn_line is None

    drive(app, script)


def test_follow_leaves_you_where_you_are_when_not_at_the_end(tmp_path: Path) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "live.trace.jsonl"
    path.write_text("".join(lines[:30]), encoding="utf-8")
    app = make_app(path, follow=True)

    async def script(pilot: Any) -> None:
        await pilot.press("less_than_sign", "right")
        with path.open("a", encoding="utf-8") as out:
            out.writelines(lines[30:])
        assert await wait_for(lambda: len(app.replay.index) == 36, pilot)
        assert app.replay.step == 1
        assert "step 2/36" in visible_text(app, "#position")

    drive(app, script)


def test_follow_can_start_before_the_first_step(tmp_path: Path) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "live.trace.jsonl"
    path.write_text(lines[0], encoding="utf-8")  # only the header so far
    app = make_app(path, follow=True)

    async def script(pilot: Any) -> None:
        assert "no steps yet" in visible_text(app, "#stage")
        with path.open("a", encoding="utf-8") as out:
            out.writelines(lines[1:8])
        assert await wait_for(lambda: len(app.replay.index) > 0, pilot)
        assert app.replay.step == len(app.replay.index) - 1

    drive(app, script)


def test_follow_waits_for_a_file_not_written_yet_and_says_when_it_ended(tmp_path: Path) -> None:
    path = tmp_path / "later.trace.jsonl"
    app = make_app(path, follow=True)
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)

    async def script(pilot: Any) -> None:
        await pilot.pause(0.3)
        assert "waiting for" in visible_text(app, "#stage") and str(path) in visible_text(
            app, "#stage"
        )
        assert "following" in visible_text(app, "#position")
        with path.open("w", encoding="utf-8") as out:
            out.write("".join(lines[:15]))  # the recorder starts
        assert await wait_for(lambda: len(app.replay.index) > 0, pilot)
        assert "following" in visible_text(app, "#position")
        assert "ended" not in visible_text(app, "#position")
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(lines[15:]))  # ... and ends the session
        assert await wait_for(lambda: "ended" in visible_text(app, "#position"), pilot)
        assert "following" not in visible_text(app, "#position")

    drive(app, script)


def test_follow_on_a_file_written_all_at_once_opens_at_its_end(tmp_path: Path) -> None:
    path = tmp_path / "done.trace.jsonl"
    path.write_bytes(MAIN_TRACE.read_bytes())
    app = make_app(path, follow=True)

    async def script(pilot: Any) -> None:
        assert app.replay.step == len(app.replay.index) - 1 == 35
        assert "ended" in visible_text(app, "#position")

    drive(app, script)


def test_follow_on_a_file_created_later_keeps_to_its_end_as_tail_F_does(tmp_path: Path) -> None:
    path = tmp_path / "later.trace.jsonl"
    app = make_app(path, follow=True)
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        with path.open("w", encoding="utf-8") as out:
            out.write("".join(lines[:15]))  # the recorder starts: a few steps at once
        assert await wait_for(lambda: len(app.replay.index) > 1, pilot)
        seen["opened"] = (app.replay.step, len(app.replay.index) - 1)
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(lines[15:40]))
        assert await wait_for(lambda: len(app.replay.index) > seen["opened"][1] + 1, pilot)
        seen["grown"] = (app.replay.step, len(app.replay.index) - 1)
        await pilot.press("left")  # the reader moves away: the cursor stays where they put it
        where = app.replay.step
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(lines[40:]))
        assert await wait_for(lambda: len(app.replay.index) == 36, pilot)
        seen["moved away"] = (app.replay.step, where)

    drive(app, script)
    assert seen["opened"][0] == seen["opened"][1] > 0
    assert seen["grown"][0] == seen["grown"][1]
    assert seen["moved away"][0] == seen["moved away"][1] < 35
