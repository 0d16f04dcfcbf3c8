"""SVG snapshots of the replay at a half screen (80x24) and a full one (120x40), in both languages
(pytest-textual-snapshot; Textual is pinned exactly, so a picture changes only when the replay
does). Update with ``--snapshot-update``.

Each station; ``--doctor``; a search with its hits lit; an unfolded fold; the raw JSON; the
picker; the help. The chapter panel uses the fixed :class:`StubGuide`, and the findings panel the
doctor's findings with fixed words (:func:`stub_diagnosis`), so rewording the guide or the doctor
does not redraw these.
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import FAULT_TRACE, make_app, stub_diagnosis

from tracer.view.cursor import locate

STATIONS = [("mapping", 2), ("wrapping", 2), ("appending", 2), ("resending", 3)]
SIZES = [(80, 24), (120, 40)]
LANGS = ["en", "zh"]


def at(stage: str, turn: int, lang: str) -> Any:
    app = make_app(lang=lang)
    app.replay.state.go(locate(app.replay.index, turn=turn, stage=stage))
    return app


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stage, turn", STATIONS)
def test_station(
    snap_compare: Any, stage: str, turn: int, lang: str, size: tuple[int, int]
) -> None:
    assert snap_compare(at(stage, turn, lang), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_help_screen(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(lang=lang), press=["question_mark"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_doctor(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    # The first fault: a tool result that never reached the model, marked at step 16.
    app = make_app(FAULT_TRACE, lang=lang, doctor=True, diagnosis=stub_diagnosis(FAULT_TRACE))
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_search_lights_its_hits(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    word = "翻译" if lang == "zh" else "is_error"

    async def search(pilot: Any) -> None:
        await pilot.press("slash", *word, "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(lang=lang), run_before=search, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_unfolded_prefix(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    # Resending in turn 3: the 3 messages shared with request 2, opened one by one.
    assert snap_compare(at("resending", 3, lang), press=["o"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_raw_view(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(at("mapping", 2, lang), press=["r"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_picker(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(lang=lang), press=["O"], terminal_size=size)
