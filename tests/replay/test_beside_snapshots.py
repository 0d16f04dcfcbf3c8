"""SVG snapshots of ``tracer replay A --beside B`` at 80x24 and 140x42, in both languages: the
summary it opens on, and fault 03's malformed block beside its twin's good one (the mapping row,
reached with ``n n``). The doctor's finding has fixed words, as in the replay's own snapshots,
so rewording the doctor redraws none of these. Update with ``--snapshot-update``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from replay_helpers import FIXTURES

from tracer.replay.beside_command import make_beside_app
from tracer.view.diagnose import diagnose

FAULT = FIXTURES / "03-malformed-result.trace.jsonl"
TWIN = FIXTURES / "03-read-calc.trace.jsonl"
SIZES = [(80, 24), (140, 42)]
LANGS = ["en", "zh"]


def fixed_findings() -> tuple[Any, ...]:
    found = diagnose(FAULT)
    assert found.problem is None and found.findings, found.problem
    return tuple(
        replace(f, message=f"[{f.rule} message]", message_zh=f"【{f.rule} 的说明】")
        for f in found.findings
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_the_summary_first(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    app = make_beside_app(FAULT, TWIN, lang=lang, findings=fixed_findings(), findings_b=())
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_the_bad_block_beside_the_good_one(
    snap_compare: Any, lang: str, size: tuple[int, int]
) -> None:
    app = make_beside_app(FAULT, TWIN, lang=lang, findings=fixed_findings(), findings_b=())
    assert snap_compare(app, press=["n", "n"], terminal_size=size)
