"""SVG snapshots of each station in both languages (pytest-textual-snapshot; Textual is pinned
exactly, so a picture changes only when the replay does). Update with ``--snapshot-update``.

The chapter panel uses the fixed :class:`StubGuide`, and the findings panel the doctor's findings
with fixed words (:func:`stub_diagnosis`), so rewording the guide or the doctor does not redraw
these.
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import FAULT_TRACE, SIZE, make_app, stub_diagnosis

from tracer.replay.steps import locate

STATIONS = [("mapping", 2), ("wrapping", 2), ("appending", 2), ("resending", 3)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stage, turn", STATIONS)
def test_station(snap_compare: Any, stage: str, turn: int, lang: str) -> None:
    app = make_app(lang=lang)
    app.cursor.go(locate(app.index, turn=turn, stage=stage))
    assert snap_compare(app, terminal_size=SIZE)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_screen(snap_compare: Any, lang: str) -> None:
    assert snap_compare(make_app(lang=lang), press=["question_mark"], terminal_size=SIZE)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_findings_panel(snap_compare: Any, lang: str) -> None:
    # The first fault: a tool result that never reached the model, marked at step 16.
    app = make_app(FAULT_TRACE, lang=lang, diagnosis=stub_diagnosis(FAULT_TRACE))
    assert snap_compare(app, press=["d"], terminal_size=SIZE)
