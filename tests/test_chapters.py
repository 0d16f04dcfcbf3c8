"""The chapter 12 guide: complete, true to the code, and checked when it is loaded.

"True to the code" means: every tracer function the guide names can be imported, every stage the
loop can emit has text in both languages, every checkpoint points at a scenario that exists, and
the diagrams name the stages our loop really emits. A broken guide is bad input: one line naming
the key and ``file:line``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tracer.chapter.guide import guide_path, load_guide
from tracer.chapter.guide_records import LANGS, Guide, Section
from tracer.errors import UserError
from tracer.files.paths import SCENARIOS_DIR
from tracer.trace.events import STAGES, STATIONS

CHAPTER_SECTIONS = [
    "路线图",
    "源码入口",
    "第一站：结果长什么样",
    "第二站：包装进消息",
    "出错了怎么办",
    "第三站：对话循环",
    "多轮工具调用：一次不够",
    "结果的旅途",
    "常见错误与检查方法",
    "试试看",
    "检查点",
    "下一站预告",
]
BadGuide = Callable[[str, str], UserError]
RULES = {
    "result-not-returned",
    "tool-use-id-mismatch",
    "malformed-result",
    "loop-not-ending",
    "max-turns",
}


@pytest.fixture(scope="module")
def guide() -> Guide:
    return load_guide()


def _section_titled(guide: Guide, zh: str) -> Section:
    found = [s for s in guide.sections if s.title["zh"].startswith(zh)]
    assert len(found) == 1, zh
    return found[0]


# -- content -------------------------------------------------------------------------------------


def test_every_section_of_the_chapter_is_there_in_order(guide: Guide) -> None:
    titles = [s.title["zh"] for s in guide.sections]
    assert len(titles) == len(CHAPTER_SECTIONS)
    for title, expected in zip(titles, CHAPTER_SECTIONS, strict=True):
        assert title.startswith(expected)
    for section in guide.sections:
        for lang in LANGS:
            assert section.title[lang].strip() and section.notes[lang].strip()
        # The English is not a copy of the Chinese (a forgotten translation).
        assert section.notes["en"] != section.notes["zh"]
        assert re.search(r"[\u4e00-\u9fff]", section.notes["zh"])
        assert not re.search(r"[\u4e00-\u9fff]", section.notes["en"])


def test_every_stage_the_loop_emits_has_text_in_both_languages(guide: Guide) -> None:
    assert set(guide.stages) == set(STAGES)
    for stage in STAGES:
        for lang in LANGS:
            assert guide.stage_text(stage, lang).strip(), (stage, lang)
        section = guide.section_for_stage(stage)
        assert section is not None
        assert stage in section.stages, (stage, section.id)


def test_the_four_stations_are_explained_by_the_station_sections(guide: Guide) -> None:
    assert guide.section_for_stage("mapping") is _section_titled(guide, "第一站")
    assert guide.section_for_stage("wrapping") is _section_titled(guide, "第二站")
    assert guide.section_for_stage("appending") is _section_titled(guide, "第三站")
    assert guide.section_for_stage("resending") is _section_titled(guide, "第三站")
    assert guide.section_for_stage("max_turns_check") is _section_titled(guide, "多轮工具调用")


def _resolve(module: str, dotted: str) -> object:
    target: object = importlib.import_module(module)
    for name in dotted.split("."):
        target = getattr(target, name)
    return target


def test_every_tracer_anchor_imports_and_resolves(guide: Guide) -> None:
    anchors = [s.tracer for s in guide.sections if s.tracer is not None]
    assert len(anchors) >= 6
    for anchor in anchors:
        assert callable(_resolve(anchor.module, anchor.function)), anchor.dotted


def test_the_chapters_named_functions_are_anchored(guide: Guide) -> None:
    ours = {
        (s.claude_code.function, s.tracer.dotted)
        for s in guide.sections
        if s.claude_code is not None and s.tracer is not None
    }
    assert ("addToolResult", "tracer.agent.execution.ToolRunner.add_tool_result") in ours
    assert ("queryLoop", "tracer.agent.loop.query_loop") in ours
    assert ("processToolResultBlock", "tracer.agent.results.process_tool_result_block") in ours
    for section in guide.sections:
        if section.claude_code is not None:
            assert re.fullmatch(r"src/[\w/]+\.tsx?", section.claude_code.file)


@pytest.mark.parametrize(
    "literal",
    [
        "Exit code N",  # Bash: a non-zero exit
        "file-descriptor level",  # Bash: stderr merged into stdout in 2.1.88
        "<persisted-output>",  # oversized results
        "(Bash completed with no output)",  # empty results
        "tool_use_result",  # Edit: the diff stays here
        "has been updated successfully.",  # Edit: the one sentence
        "3, 7, 11",  # internal list vs the API's
        "only a tool call that returned normally reaches addToolResult",  # errors skip the hook
        "tracer only",  # ...and tracer marks the line it prints anyway
        "{stdout, stderr, interrupted, isImage, noOutputExpected}",  # Bash's real raw output
        "not a confirmed one",  # the makeup of 3/7/11 is one reading
        "is_error: undefined",  # Read's block has no is_error
    ],
)
def test_fidelity_notes_cover_where_2_1_88_differs(guide: Guide, literal: str) -> None:
    notes = [note for s in guide.sections for note in s.fidelity]
    assert all(note["zh"].strip() and note["en"].strip() for note in notes)
    assert any(literal in note["en"] for note in notes), literal


def test_seven_checkpoints_each_with_a_stage_and_a_real_scenario(guide: Guide) -> None:
    assert len(guide.checkpoints) == 7
    assert len({c.id for c in guide.checkpoints}) == 7
    for checkpoint in guide.checkpoints:
        assert checkpoint.stage in STAGES
        assert (SCENARIOS_DIR / f"{checkpoint.scenario}.yaml").is_file()
        assert checkpoint.text["zh"] and checkpoint.text["en"]


def test_five_common_errors_with_their_rule_ids(guide: Guide) -> None:
    assert {e.rule for e in guide.common_errors} == RULES
    for error in guide.common_errors:
        assert error.severity == ("warning" if error.rule == "max-turns" else "error")
        assert error.stage in STAGES
        for lang in LANGS:
            assert error.symptom[lang] and error.check[lang]
    assert guide.rule("max-turns") is not None
    assert guide.rule("api-invariants") is None  # the doctor's own rule, not the chapter's


def test_the_two_diagrams_are_drawn_from_our_stages(guide: Guide) -> None:
    roadmap = _section_titled(guide, "路线图").mermaid
    journey = _section_titled(guide, "结果的旅途").mermaid
    assert roadmap is not None and roadmap.splitlines()[0] == "graph LR"
    assert journey is not None and journey.splitlines()[0] == "graph TD"
    for station in STATIONS:
        assert station in roadmap and station in journey
    for stage in STAGES:
        if stage != "session":
            assert stage in journey, stage
    for line in (*roadmap.splitlines(), *journey.splitlines()):
        assert line.count('"') % 2 == 0, line
        assert line.count("[") == line.count("]") and line.count("{") == line.count("}"), line


# -- the API -------------------------------------------------------------------------------------


def test_lookups(guide: Guide) -> None:
    by_title = guide.section("多轮工具调用：一次不够")
    assert by_title is not None and guide.section(by_title.id) is by_title
    assert guide.section("no such section") is None
    assert guide.section_for_stage("no_such_stage") is None
    assert guide.stage_text("no_such_stage", "en") == ""
    with pytest.raises(ValueError, match="language"):
        guide.stage_text("mapping", "fr")
    section = guide.sections[0]
    assert section.title.zh == section.title["zh"] and section["id"] == section.id


def test_every_scenario_section_is_in_the_guide(guide: Guide) -> None:
    import yaml

    for path in sorted(SCENARIOS_DIR.glob("*.yaml")):
        section = yaml.safe_load(path.read_text(encoding="utf-8")).get("section")
        assert section and guide.section(section) is not None, path.name


# -- a bad guide ---------------------------------------------------------------------------------


@pytest.fixture
def bad_guide(tmp_path: Path) -> Callable[[str, str], UserError]:
    """Write a changed copy of the real guide (its scenarios stay reachable) and load it."""
    (tmp_path / "scenarios").symlink_to(SCENARIOS_DIR)
    original = guide_path().read_text(encoding="utf-8")

    def load(old: str, new: str) -> UserError:
        assert old in original, old
        path = tmp_path / "guide.yaml"
        path.write_text(original.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(UserError) as caught:
            load_guide(path)
        return caught.value

    return load


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if needle in line)


def test_a_stage_without_text_is_named(bad_guide: BadGuide, tmp_path: Path) -> None:
    error = bad_guide(
        "\n  max_turns_check:\n    section: multi-turn",
        "\n  max_turns_chek:\n    section: multi-turn",
    )
    assert "stages.max_turns_chek" in str(error)
    assert error.line == _line_of(tmp_path / "guide.yaml", "max_turns_chek:")


def test_an_unknown_stage_in_a_section_is_named(bad_guide: BadGuide, tmp_path: Path) -> None:
    error = bad_guide("stages: [max_turns_check]", "stages: [max_turn_check]")
    assert "sections[6].stages[0]" in str(error) and "max_turn_check" in str(error)
    assert error.line == _line_of(tmp_path / "guide.yaml", "stages: [max_turn_check]")
    assert str(error).startswith(f"{tmp_path / 'guide.yaml'}:{error.line}: ")


def test_a_missing_language_is_named(bad_guide: BadGuide) -> None:
    error = bad_guide("title: {zh: 路线图, en: Roadmap}", "title: {zh: 路线图}")
    assert "sections[0].title.en: missing" in str(error)


def test_a_bad_severity_and_a_missing_scenario_are_named(bad_guide: BadGuide) -> None:
    error = bad_guide("severity: warning", "severity: info")
    assert "common_errors[4].severity" in str(error)
    error = bad_guide("scenario: 05-max-turns", "scenario: 05-max-turn")
    assert "checkpoints[6].scenario" in str(error) and "05-max-turn.yaml" in str(error)


def test_a_section_pointing_nowhere_and_broken_yaml(bad_guide: BadGuide) -> None:
    error = bad_guide("    section: multi-turn", "    section: multi-turns")
    assert "stages.max_turns_check.section" in str(error)
    error = bad_guide("chapter: ch12", "chapter: [ch12")
    assert "not valid YAML" in str(error) and error.line is not None


def test_a_missing_guide_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_guide(tmp_path / "nope.yaml")


# -- the follow-along section of the README ------------------------------------------------------

README = guide_path().parents[2] / "README.md"


def _follow_along() -> str:
    """The README's "Follow along with chapter 12" section, up to the next ``## `` heading."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Follow along with chapter 12", 1)[1]
    return section.split("\n## ", 1)[0]


_REPLAY = re.compile(r"tracer replay (recordings/\S+\.trace\.jsonl) --step (\d+)")


def _stage_of_step(recording: str, step: int) -> str:
    from tracer.files.paths import ROOT
    from tracer.trace.reader import TraceReader

    reader = TraceReader(ROOT / recording)
    steps = [reader[i].stage for i in range(len(reader)) if reader.is_step(i)]
    assert 1 <= step <= len(steps), (recording, step)
    return steps[step - 1]


def test_follow_along_covers_every_section_and_its_files_exist(guide: Guide) -> None:
    from tracer.files.paths import ROOT

    text = _follow_along()
    headings = [line[4:] for line in text.splitlines() if line.startswith("### ")]
    assert len(headings) == len(CHAPTER_SECTIONS)
    for heading, title in zip(headings, CHAPTER_SECTIONS, strict=True):
        assert heading.startswith(title), heading
    for path in re.findall(r"chapters/ch12/scenarios/\S+\.yaml", text):
        assert (ROOT / path).is_file(), path
    for path in re.findall(r"recordings/\S+\.trace\.jsonl", text):
        assert (ROOT / path).is_file(), path


def test_follow_along_replay_steps_show_the_stage_they_promise() -> None:
    checked = 0
    for line in _follow_along().splitlines():
        match = _REPLAY.search(line)
        comment = re.search(r"#\s+(\w+)", line)
        if match and comment:
            assert _stage_of_step(match[1], int(match[2])) == comment[1], line
            checked += 1
    assert checked >= 15


def test_follow_along_checkpoint_rows_point_at_their_stage(guide: Guide) -> None:
    text = _follow_along()
    table = text.split("### 检查点", 1)[1].split("###", 1)[0]
    rows = _REPLAY.findall(table)
    assert len(rows) == len(guide.checkpoints)
    for (recording, step), checkpoint in zip(rows, guide.checkpoints, strict=True):
        assert recording == f"recordings/{checkpoint.scenario}.trace.jsonl"
        assert _stage_of_step(recording, int(step)) == checkpoint.stage, checkpoint.id
