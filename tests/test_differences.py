"""The differences from Claude Code 2.1.88 that are left: one list, shown where they matter.

``chapters/ch12/differences.yaml`` is read with the guide; each entry names a step kind and the
scenarios that show it, says what tracer does, what 2.1.88 sends and why, in both languages; the
replay's chapter panel lists the entries of the step it shows. A broken file is bad input: one
line naming the key and its line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.chapter.differences import load_differences, of_stage
from tracer.chapter.guide import load_guide
from tracer.errors import UserError
from tracer.files.paths import CHAPTERS_DIR
from tracer.view.section_text import step_text


def test_the_list_is_read_with_the_guide_and_names_real_scenarios() -> None:
    guide = load_guide()
    ids = [d.id for d in guide.differences]
    assert {"bash-timeout", "read-reminder", "api-error-end", "sibling-after-rejection"} <= set(ids)
    scenarios = {p.stem for p in (CHAPTERS_DIR / "ch12").glob("*/*.yaml")}
    for difference in guide.differences:
        assert set(difference.scenarios) <= scenarios, difference.id
        for text in (difference.tracer, difference.claude_code, difference.why):
            assert text["zh"] and text["en"]


def test_the_panel_lists_a_stages_differences_for_its_scenario() -> None:
    guide = load_guide()
    assert [d.id for d in of_stage(guide.differences, "terminal")] == ["api-error-end"]
    en = step_text(guide, None, "terminal", "en", "08-api-invariants").plain
    assert "Unlike Claude Code 2.1.88" in en and "its loop returns completed" in en
    zh = step_text(guide, None, "wrapping", "zh", "11-permission-reject-abort").plain
    assert "与 Claude Code 2.1.88 的差异" in zh and "REJECT_MESSAGE" in zh
    # An entry that names its scenarios shows on those only.
    other = step_text(guide, None, "wrapping", "en", "09-no-tools").plain
    assert "CANCEL_MESSAGE" not in other


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("differences:\n  - id: x\n", "differences[0].claude_code: missing"),
        (
            "differences:\n  - {id: x, stage: nowhere, tracer: {zh: 甲, en: a},"
            " claude_code: {zh: 乙, en: b}, why: {zh: 丙, en: c}}\n",
            "unknown stage 'nowhere'",
        ),
        (
            "differences:\n  - {id: x, stage: mapping, tracer: {en: a},"
            " claude_code: {zh: 乙, en: b}, why: {zh: 丙, en: c}}\n",
            "differences[0].tracer.zh: missing",
        ),
    ],
)
def test_a_broken_list_is_one_line_with_its_place(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "differences.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_differences(path)
    assert message in str(caught.value) and "differences.yaml:" in str(caught.value)
