"""The picker (``O``) offers more than the bundled recordings: the traces opened lately and the
local Claude Code sessions, a session imported when it is chosen; the palette finds a
recording by its name."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from replay_helpers import FAULT_TRACE, MAIN_TRACE, drive, make_app

from tracer.replay.widgets.picker import PickerScreen
from tracer.view import sources
from tracer.view.opening import choices

TRANSCRIPT = Path(__file__).parents[1] / "data" / "claude-code" / "v1.0-inline-sidechain.jsonl"


def _session(state: Path) -> Path:
    """A Claude Code session where Claude Code keeps them ($CLAUDE_CONFIG_DIR/projects/…)."""
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    return Path(shutil.copy(TRANSCRIPT, folder / "5e55a0f1-0000-4000-8000-000000000001.jsonl"))


def test_recent_files_come_first_once_and_the_bundled_are_not_kept(tmp_path: Path) -> None:
    a, b = tmp_path / "a.trace.jsonl", tmp_path / "b.trace.jsonl"
    shutil.copy(MAIN_TRACE, a)
    shutil.copy(FAULT_TRACE, b)
    sources.remember(a)
    sources.remember(b)
    sources.remember(a)
    assert sources.recent_traces() == [a.resolve(), b.resolve()]
    from tracer.files.paths import MAIN_RECORDING

    sources.remember(MAIN_RECORDING)
    assert MAIN_RECORDING.resolve() not in sources.recent_traces()
    b.unlink()  # gone since: not offered
    assert sources.recent_traces() == [a.resolve()]


def test_the_picker_lists_recent_files_and_claude_code_sessions(tmp_path: Path) -> None:
    recent = tmp_path / "mine.trace.jsonl"
    shutil.copy(MAIN_TRACE, recent)
    sources.remember(recent)
    session = _session(tmp_path)
    found = {c.group: c for c in choices(cwd=tmp_path / "empty")}
    assert found["recent"].path == recent.resolve()
    assert found["claude"].path == session
    assert "TODO" in found["claude"].label("en")  # titled by its first prompt


def test_choosing_a_session_imports_it_and_opens_the_trace(tmp_path: Path) -> None:
    session = _session(tmp_path)
    app = make_app(lang="en")

    async def script(pilot: Any) -> None:
        await pilot.press("O")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        number = next(i for i, c in enumerate(picker.choices) if c.path == session)
        picker.dismiss(picker.choices[number].path)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()

    drive(app, script)
    opened = Path(app.replay.index.reader.path)
    assert opened.name.endswith(".trace.jsonl") and session.stem in opened.name
    assert app.replay.index.reader.header["source"]["kind"] == "import"
    assert any(app.replay.index.stage(s) == "mapping" for s in range(len(app.replay.index)))


def test_the_palette_finds_a_recording_by_name() -> None:
    app = make_app(lang="zh")
    names: list[str] = []

    async def script(pilot: Any) -> None:
        names.extend(str(c.title) for c in app.get_system_commands(app.screen))

    drive(app, script)
    assert any("05-max-turns" in n and n.startswith("打开录制：") for n in names)
    assert any("faults/03-malformed-result" in n for n in names)


def _folder_with_bad_traces(tmp_path: Path) -> Path:
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "binary.trace.jsonl").write_bytes(b"\x00\x01\x02garbage\xff" * 40)
    (folder / "empty.trace.jsonl").write_bytes(b"")
    shutil.copyfile(MAIN_TRACE, folder / "good.trace.jsonl")
    return folder


def test_a_folder_lists_an_empty_or_binary_file_as_no_trace(tmp_path: Path) -> None:
    from tracer.errors import UserError
    from tracer.trace.reader import TraceReader
    from tracer.view.opening import describe_folder

    folder = _folder_with_bad_traces(tmp_path)
    rows = dict(line.split("  ", 1) for line in describe_folder(folder, "en").splitlines())
    for name in ("binary", "empty"):
        path = folder / f"{name}.trace.jsonl"
        try:
            TraceReader(path)
        except UserError as exc:  # the words the command line says for it
            assert rows[str(path)] == f"✗ {exc.message}"
        else:
            raise AssertionError(f"{name} opened")
    assert rows[str(folder / "good.trace.jsonl")].startswith("The main walk")
    listed = {c.path.name: c for c in choices(folder, more=False)}
    assert listed["empty.trace.jsonl"].problem and not listed["good.trace.jsonl"].problem


def test_the_picker_refuses_a_binary_trace_with_the_command_lines_words(tmp_path: Path) -> None:
    from tracer.errors import UserError
    from tracer.replay.widgets.loader import TraceLoader
    from tracer.trace.reader import TraceReader

    bad = _folder_with_bad_traces(tmp_path) / "binary.trace.jsonl"
    try:
        TraceReader(bad)
    except UserError as exc:
        cli_words = str(exc)
    app = make_app()
    seen: list[Any] = []

    async def script(pilot: Any) -> None:
        app.replay.query_one(TraceLoader).choose(bad)  # as the picker does when it is chosen
        await pilot.pause()
        await pilot.pause()
        seen.extend(n.message for n in app._notifications)
        seen.append(app.replay.index.reader.path)

    drive(app, script)
    assert cli_words in seen[:-1]  # not taken for a Claude Code transcript and imported
    assert seen[-1] == MAIN_TRACE  # and the open trace stays
