"""Attacks through the terminal, in the replay: a shared trace whose strings hold escapes.

The command-line side is :mod:`tests.attacks.test_terminal_escapes`. Here the same bytes (set the
window title, clear the screen, write the clipboard over OSC 52, the 8-bit CSI, a bidi override)
sit in every free-text string of a recording (the prompt, the AI's text and thinking, a tool's
command, output and file name, the debug lines, the session's title and the recording's own
name), and the replay is driven at 80x24 through every panel. What Textual would write to the
terminal is rebuilt from the screen's compositor, exactly as ``App._display`` renders it, and
must hold no escape but the app's own (colours and cursor moves).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.strip import Strip
from textual.widget import Widget

from tracer.chapter.guide import guide_path, load_guide
from tracer.files.paths import RECORDINGS_DIR
from tracer.replay import factory
from tracer.replay.app import ReplayApp
from tracer.text.printable import printable_text
from tracer.view.sources import remember

MAIN = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
#: Title, clear screen, clipboard (OSC 52, "hi" in base64), 8-bit CSI, a bidi override.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;aGk=\x07\x9b2J\u202e"
#: The same, as the replay shows it (Rich itself drops BEL when the text is made).
SHOWN = "\\x1b]0;pwned"
#: The strings of a trace that are free text (the rest are ids, kinds, numbers, enums).
FREE = frozenset(
    {"prompt", "content", "text", "thinking", "stdout", "stderr", "command", "description"}
    | {"file_path", "filePath", "line", "rule", "zh", "en", "name"}
)
#: What the app writes itself: SGR colours and cursor moves.
OWN = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H")
#: What a terminal obeys: C0 controls but newline and tab, DEL, C1, bidi controls.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
SIZE = (80, 24)


def _poison(value: Any, key: str = "", free: frozenset[str] = FREE) -> Any:
    if isinstance(value, dict):
        return {k: _poison(v, k, free) for k, v in value.items()}
    if isinstance(value, list):
        return [_poison(v, key, free) for v in value]
    if isinstance(value, str) and key in free:
        return HOSTILE + value
    return value


def _hostile_trace(folder: Path) -> Path:
    """The main walk with :data:`HOSTILE` before every free-text string, under a file name that
    holds it too (a file name is input as well: the header and the picker show it)."""
    lines = [json.loads(line) for line in MAIN.read_text(encoding="utf-8").splitlines()]
    header, events_ = lines[0], lines[1:]
    header["source"]["name"] = HOSTILE + header["source"]["name"]
    out = [header] + [_poison(event) for event in events_]
    out[1]["title"] = {"en": HOSTILE + "a title", "zh": HOSTILE + "标题"}
    trace = folder / f"hostile{HOSTILE}.trace.jsonl"
    trace.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in out), "utf-8")
    return trace


def _terminal(app: ReplayApp) -> str:
    """What ``App._display`` would write for the whole screen now (a full repaint)."""
    update = app.screen._compositor.render_update(full=True)
    return update.render_segments(app.console)


def _obeyed(written: str) -> list[str]:
    """Every escape or control in ``written`` that the app did not write itself."""
    assert "\x1b]0;" not in written and "\x1b[2J" not in written and "\x1b]52" not in written
    return [match.group() for match in OBEYED.finditer(OWN.sub("", written))]


def _unfiltered(app: ReplayApp) -> ReplayApp:
    """``app`` without its last wall (the line filter), so what is checked is that each panel
    draws the trace's text printable itself, as visible escapes; the filter is checked on its
    own (:func:`test_the_line_filter_is_the_last_wall`). With it, the app writes a subset."""
    app.printable_filter.enabled = False
    return app


def _drive(app: ReplayApp, script: Callable[[Any], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(main())


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRACER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    return _hostile_trace(tmp_path)


#: Each panel, opened on the first step (the session: its prompt and title), and whether the
#: escapes must show there as text (the others may show no trace text at all).
VIEWS = {
    "stations": ([], True),
    "timeline": (["T"], False),
    "chapter": (["c"], False),
    "raw": (["r"], True),
    "debug console": (["D"], True),
    "findings": (["d"], False),
    "contents": (["s"], False),
    "picker": (["O"], True),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_shows_the_escapes_as_text(hostile: Path, lang: str) -> None:
    """Every step of the trace is clean, and where trace text is laid out it becomes visible
    escapes (``\\x1b]0;pwned``), not dropped: the header, the border, the step itself."""
    app = _unfiltered(factory.make_app(hostile, factory.ReplayOptions(lang=lang)))
    seen: dict[int, list[str]] = {}
    shown: list[str] = []

    async def script(pilot: Any) -> None:
        for step in range(len(app.replay.index)):
            app.replay.step = step
            await pilot.pause()
            written = _terminal(app)
            seen[step] = _obeyed(written)
            shown.append(OWN.sub("", written))

    _drive(app, script)
    assert len(seen) == len(app.replay.index) > 30
    assert {step: found for step, found in seen.items() if found} == {}
    assert sum(SHOWN in screen for screen in shown) > 10  # the prompt, the outputs, the header


@pytest.mark.parametrize("view", list(VIEWS))
def test_no_escape_from_the_trace_reaches_the_terminal(hostile: Path, view: str) -> None:
    """Each panel open, on the first step and the next: nothing from the trace that a terminal
    would obey is written, whether the string is laid out in a pager, drawn in a one-line
    strip, a border title, or an option list's row."""
    remember(hostile)  # the picker lists it among the recent files, by its hostile name
    app = _unfiltered(factory.make_app(hostile, factory.ReplayOptions(lang="en")))
    keys, visible = VIEWS[view]
    seen: list[list[str]] = []
    shown: list[str] = []

    async def script(pilot: Any) -> None:
        await pilot.press(*keys)
        for _ in range(2):
            await pilot.pause()
            written = _terminal(app)
            seen.append(_obeyed(written))
            shown.append(OWN.sub("", written))
            await pilot.press("right")

    _drive(app, script)
    assert seen == [[], []]
    assert not visible or SHOWN in shown[0]


def test_a_search_query_with_escapes_is_not_echoed_raw(hostile: Path) -> None:
    """A query pasted into the search bar with an escape in it is refused (the input takes only
    what prints); the bar, the count and the lit matches hold none of it."""
    app = _unfiltered(factory.make_app(hostile, factory.ReplayOptions(lang="en")))
    found: list[list[str]] = []

    async def script(pilot: Any) -> None:
        await pilot.press("slash")
        await pilot.pause()
        app.screen.focused.post_message(events.Paste(HOSTILE + "pwned"))
        await pilot.pause()
        assert not OBEYED.search(app.screen.focused.value)
        found.append(_obeyed(_terminal(app)))
        await pilot.press("enter")
        await pilot.pause(0.3)
        found.append(_obeyed(_terminal(app)))

    _drive(app, script)
    assert found == [[], []]


def test_y_copies_over_osc_52_and_the_payload_is_printable(hostile: Path) -> None:
    """``y`` still writes the app's own OSC 52 (base64, so nothing can end it early), and what
    it carries is what the panel shows: the escapes as text, none a terminal would obey when
    the clipboard is pasted into one."""
    app = _unfiltered(factory.make_app(hostile, factory.ReplayOptions(lang="en")))
    written: list[str] = []

    async def script(pilot: Any) -> None:
        app._driver.write = written.append  # the headless driver writes nowhere; listen
        await pilot.press("y")
        await pilot.press("r", "y")  # raw mode copies the step's JSON
        await pilot.pause()

    _drive(app, script)
    copies = [w for w in written if w.startswith("\x1b]52;c;")]
    assert len(copies) == 2
    payloads = []
    for copy in copies:
        match = re.fullmatch(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", copy)
        assert match, copy
        payloads.append(base64.b64decode(match.group(1)).decode("utf-8"))
    assert not any(OBEYED.search(p) for p in payloads)
    assert SHOWN in payloads[0]  # the text shown, escapes as text
    assert "\\u001b]0;pwned" in payloads[1]  # JSON's own escapes, and C1 and bidi as \\u too
    assert json.loads(payloads[1])["records"][0]["prompt"].startswith(HOSTILE)  # the same JSON


def _hostile_guide(folder: Path) -> Path:
    """The bundled guide with :data:`HOSTILE` before every Chinese and English text."""
    bundled = guide_path()
    doc = yaml.safe_load(bundled.read_text(encoding="utf-8"))
    for other in bundled.parent.iterdir():  # its scenarios, as the guide names them
        if other != bundled:
            (folder / other.name).symlink_to(other)
    path = folder / "guide.yaml"
    poisoned = _poison(doc, free=frozenset({"zh", "en"}))
    path.write_text(yaml.safe_dump(poisoned, allow_unicode=True), encoding="utf-8")
    return path


def test_the_tour_cards_hold_no_escape(tmp_path: Path) -> None:
    """The tour draws its cards and questions from the guide: a guide whose texts hold escapes
    shows them, stop after stop, without a terminal obeying any."""
    guide = load_guide(_hostile_guide(tmp_path))
    app = _unfiltered(factory.make_tour_app(lang="en", state=tmp_path / "tour.json", guide=guide))
    seen: list[list[str]] = []
    shown: list[str] = []

    async def script(pilot: Any) -> None:
        for _ in range(6):
            written = _terminal(app)
            seen.append(_obeyed(written))
            shown.append(OWN.sub("", written))
            await pilot.press("w")
            await pilot.pause()

    _drive(app, script)
    assert seen == [[]] * 6
    assert any(SHOWN in s for s in shown)  # the cards show the escapes, as text


def test_printable_text_moves_the_styles_with_the_characters() -> None:
    text = Text("a")
    text.append("\x1b[2J", style="bold")
    text.append("b\u202e", style="red")
    out = printable_text(text)
    assert out.plain == "a\\x1b[2Jb\\u202e"
    assert [(out.plain[s.start : s.end], str(s.style)) for s in out.spans] == [
        ("\\x1b[2J", "bold"),
        ("b\\u202e", "red"),
    ]
    clean = Text("第2轮\tok\n", style="dim")
    assert printable_text(clean) is clean  # nothing to escape: the very same text


class _RawLines(Widget):
    """A line-API widget that draws the trace's bytes as they are, as one added later might if
    it built its strips itself: the render layer never sees them, and Textual's ``Content``
    (which loses zero-width characters when it crops a line) is not in the way either."""

    DEFAULT_CSS = "_RawLines { height: 1; }"

    def render_line(self, y: int) -> Strip:
        return Strip([Segment("raw " + HOSTILE + "end")])


@pytest.mark.parametrize("filtered", [True, False])
def test_the_line_filter_is_the_last_wall(tmp_path: Path, filtered: bool) -> None:
    """Whatever reaches the screen past the render layer is cleaned by the app's line filter;
    without it, the same widget writes the escapes (so the wall is what holds)."""
    app = factory.make_app(MAIN, factory.ReplayOptions(lang="en"))
    app.printable_filter.enabled = filtered
    found: list[str] = []

    async def script(pilot: Any) -> None:
        await app.screen.mount(_RawLines(), before=0)
        await pilot.pause()
        written = _terminal(app)
        assert "raw " in OWN.sub("", written)
        found.extend(OBEYED.findall(OWN.sub("", written)))

    _drive(app, script)
    assert bool(found) is not filtered
