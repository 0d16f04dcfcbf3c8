"""The issue's cosmetic list, each checked: what the help lists, how the header fits at 80
columns in Chinese, counts in the singular, paths from a deleted workspace, section ids, and the
command line's descriptions and its list of scenario names."""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import drive, make_app, visible_text
from textual.geometry import Region

from tracer.importers.output import _number
from tracer.replay.widgets.screens import HelpScreen
from tracer.view.i18n_keys import HELP
from tracer.view.render_output import shown_path


def test_the_help_lists_shift_tab_j_k_b_v_and_escape() -> None:
    keys = " ".join(k for k, _ in HELP).split()
    for key in ("shift+Tab", "j", "k", "B", "v", "Esc"):
        assert key in keys


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_help_row_is_cut_at_80_columns(lang: str) -> None:
    app = make_app(lang=lang)
    rows: list[str] = []

    async def script(pilot: Any) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        static = app.screen.query_one("#help-body").query("Static").last()
        size = static.size
        for strip in static.render_lines(Region(0, 0, size.width, size.height)):
            rows.append(strip.text)

    drive(app, script, size=(80, 24))
    assert rows and not any("…" in row for row in rows)


def test_the_zh_header_keeps_a_gap_before_the_counter_at_80_columns() -> None:
    app = make_app(lang="zh", step=12)

    async def script(pilot: Any) -> None:
        strip = app.query_one("JourneyStrip")
        line = "".join(seg.text for seg in strip.render_line(0))
        assert visible_text(app, "#position").endswith("第13/36步")
        assert "  第2轮" in line  # the label and the counter never run together

    drive(app, script, size=(80, 24))


def test_counts_are_singular_for_one() -> None:
    assert _number("subagent loops", 1) == "subagent loop"
    assert _number("tool results", 1) == "tool result"
    assert _number("tool results", 2) == "tool results"


def test_a_path_in_the_deleted_workspace_is_shown_relative_to_it() -> None:
    assert shown_path("/tmp/tracer-b6usdt1i/workspace/src/calc.py") == "src/calc.py"
    assert shown_path("/home/dev/app/calc.py") == "/home/dev/app/calc.py"  # an import's own


def test_the_english_chapter_panel_shows_no_raw_section_id() -> None:
    from tracer.chapter.guide import load_guide
    from tracer.view.section_text import section_text

    guide = load_guide()
    for section in guide.sections:
        first = section_text(section, "en").plain.splitlines()[0]
        assert not first.startswith(section.id + " "), first


@pytest.mark.parametrize("command", ["show", "hooks", "validate"])
def test_every_command_help_has_a_description(tracer_cli: Any, command: str) -> None:
    proc = tracer_cli(command, "--help")
    assert proc.returncode == 0
    body = proc.stdout.split("positional arguments")[0]
    assert len(body.strip().splitlines()) >= 3  # usage, a blank line, then the description


def test_an_unknown_scenario_lists_the_bundled_names(tracer_cli: Any) -> None:
    proc = tracer_cli("record", "--scenario", "nope")
    assert proc.returncode == 2
    assert "01-main-walk" in proc.stderr and "faults/07-max-turns" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_finding_before_the_first_turn_says_set_up_not_turn_0() -> None:
    from types import SimpleNamespace

    from tracer.view.finding_text import finding_text

    early = SimpleNamespace(severity="warning", rule="r", step=2, turn=0, message="m")
    later = SimpleNamespace(severity="warning", rule="r", step=9, turn=3, message="m")
    assert "第2步 · 准备" in finding_text(early, "zh").plain
    assert "step 2 · set-up" in finding_text(early, "en").plain
    assert "第0轮" not in finding_text(early, "zh").plain
    assert "第9步 · 第3轮" in finding_text(later, "zh").plain
