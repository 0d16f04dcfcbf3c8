"""The guide's Mermaid flowcharts drawn as text (tracer/view/flowchart.py)."""

from __future__ import annotations

import re

import pytest

from tracer.chapter.guide import load_guide
from tracer.view.flowchart import draw, parse


@pytest.mark.parametrize("section_id", ["roadmap", "journey"])
def test_every_node_and_branch_of_the_guide_diagrams_is_drawn(section_id: str) -> None:
    source = load_guide().section(section_id).mermaid
    chart = parse(source)
    text = "\n".join(draw(source))
    # Every node's first label line appears, and every labelled branch is written out.
    for label in chart.labels.values():
        first = re.split(r"<br\s*/?>", label)[0].strip()
        assert first in text, first
    for *_, label in chart.edges:
        if label:
            assert re.search(rf"{re.escape(label)}\b", text), label
    assert "<br" not in text
    # The loop is drawn as a way back to a node already on screen.
    assert "↺" in text


def test_the_main_path_runs_down_and_a_terminal_is_a_side_branch() -> None:
    source = """graph TD
      A["start<br/>first"] --> B{"more?"}
      B -- "no" --> C["done"]
      B -- "yes" --> D("work")
      D -->|again| B
    """
    assert draw(source) == [
        "▸ start",
        "  first",
        "  ↓",
        "◆ more?",
        "  ├ no → done",
        "  ↓ yes",
        "▸ work",
        "  └ again → more? ↺",
    ]


def test_labels_may_hold_brackets_and_nodes_are_never_dropped() -> None:
    source = 'graph LR\n  A["State(messages=[...], n + 1)"] --> B["x"]\n  Z["alone"]\n'
    lines = draw(source)
    assert lines[0] == "▸ State(messages=[...], n + 1)"
    assert "▸ alone" in lines
    assert draw("graph LR\n") == []


@pytest.mark.parametrize("section_id", ["roadmap", "journey"])
def test_the_chinese_diagram_is_the_same_graph(section_id: str) -> None:
    section = load_guide().section(section_id)
    en, zh = parse(section.diagram("en")), parse(section.diagram("zh"))
    assert section.diagram("zh") != section.mermaid  # really translated
    # Same nodes, same decisions, same edges in the same order: only the words differ.
    assert list(zh.labels) == list(en.labels)
    assert zh.decisions == en.decisions
    assert [(a, b) for a, b, _ in zh.edges] == [(a, b) for a, b, _ in en.edges]
    yes_no = {"yes": "是", "no": "否", "": ""}
    assert [label for *_, label in zh.edges] == [yes_no[label] for *_, label in en.edges]


def test_the_panel_draws_the_diagram_in_the_reader_language() -> None:
    from tracer.view.chapter_panel import diagram_text

    section = load_guide().section("journey")
    assert any("翻译（mapping）" in line for line in diagram_text(section, "zh"))
    assert not any("翻译" in line for line in diagram_text(section, "en"))
