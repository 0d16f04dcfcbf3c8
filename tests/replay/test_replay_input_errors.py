"""A broken line met while the replay draws: the app closes quietly, the error is one line.

The factory checks only the first step; a later step can still need a line that is broken. That
must end like any other bad input (``tracer: file:line: what``, exit 2), not as Textual's
crash screen with a few hundred lines of traceback.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from replay_helpers import MAIN_TRACE

from tracer.cli.main import main
from tracer.errors import UserError
from tracer.replay.factory import ReplayOptions, make_app


def _broken_message(tmp_path: Path) -> tuple[Path, int]:
    """The main walk with one later message's content replaced by a number."""
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines()
    at = next(
        i for i, line in enumerate(lines) if i > 20 and json.loads(line).get("kind") == "message"
    )
    event = json.loads(lines[at])
    event["content"] = 5
    lines[at] = json.dumps(event)
    path = tmp_path / "broken.trace.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, at + 1


def test_the_app_keeps_the_error_and_closes(tmp_path: Path) -> None:
    path, line = _broken_message(tmp_path)
    app = make_app(path, ReplayOptions(step=1, lang="en"))

    async def drive() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert app.input_error is None  # step 1 draws fine
            for _ in range(20):  # on to step 21 (appending), whose view needs the broken message
                await pilot.press("l")
            await pilot.pause()

    asyncio.run(drive())
    assert isinstance(app.input_error, UserError)
    assert str(app.input_error).startswith(f"{path}:{line}: message event: content must be")
    assert app.return_code != 0


def test_the_command_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, line = _broken_message(tmp_path)
    code = main(["replay", str(path), "--step", "21", "--screenshot", str(tmp_path / "x.svg")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [
        f"tracer: {path}:{line}: message event: content must be a string or a list of blocks, "
        "not int"
    ]
    assert not (tmp_path / "x.svg").exists()
