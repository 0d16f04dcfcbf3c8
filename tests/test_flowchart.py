"""The guide's Mermaid flowcharts drawn as text (tracer/export/flowchart.py)."""

from __future__ import annotations

import re

import pytest

from tracer.chapters import load_guide
from tracer.export.flowchart import draw, parse


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
