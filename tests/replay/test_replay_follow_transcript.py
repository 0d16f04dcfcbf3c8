"""``tracer replay --follow <transcript.jsonl>``: the replay imports a Claude Code session as it
is written (the app's poll drives :class:`tracer.importers.claude_code.live.LiveImport`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from replay_helpers import drive, make_app, visible_text

from tracer.importers.claude_code.live import LiveImport

DATA = Path(__file__).parents[1] / "data" / "claude-code"
#: A bound for a wait, not a timed assertion: the test goes on as soon as the step is there.
PATIENCE = 10.0


def test_the_replay_follows_a_transcript_as_claude_code_writes_it(tmp_path: Path) -> None:
    lines = (
        (DATA / "v2.1-system-records-on-chain.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    session = tmp_path / "session.jsonl"
    session.write_text("".join(lines[:3]), encoding="utf-8")
    live = LiveImport(session, tmp_path / "live.trace.jsonl")
    live.poll()
    app = make_app(live.output, follow=True, feed=live.poll)

    async def wait_for(condition: Any, pilot: Any) -> bool:
        deadline = asyncio.get_running_loop().time() + PATIENCE
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                return False
            await pilot.pause(0.02)
        return True

    async def script(pilot: Any) -> None:
        await pilot.press("greater_than_sign")  # the last step
        first = len(app.replay.index)
        assert app.replay.index.stage(app.replay.step) == "resending"
        with session.open("a", encoding="utf-8") as out:
            out.writelines(lines[3:5])  # the Bash result, then the next call
        assert await wait_for(lambda: len(app.replay.index) > first, pilot)
        assert (
            app.replay.index.stage(app.replay.step) == "resending"
        )  # at the end, so we stay at the end
        stages = [app.replay.index.stage(s) for s in range(len(app.replay.index))]
        assert stages.count("resending") == 2 and "appending" in stages
        assert "following" in visible_text(app, "#position")

    drive(app, script)
    live.finish()
