"""The guide's Mermaid flowcharts (the roadmap, the journey) drawn as plain text.

The guide keeps each diagram once, as Mermaid (``mermaid:`` in ``chapters/ch12/guide.yaml``), so
the README and any Mermaid viewer draw it as a picture. The replay's chapter panel is a terminal
36 columns wide, so this module draws the *same* source as a column of boxes read top to bottom:

    ▸ tool_run
      ToolRunner.run_tools
      ↓
    ◆ needs_follow_up?
      ├ yes → tool_run ↺
      └ no → terminal: completed

It follows the main path from the first node. A branch to a node already drawn is a loop back
(``↺``); a branch to a node with no way out (a terminal) is drawn on its own line; the branch that
carries on is the arrow down. Only the small subset of Mermaid the guide uses is read: ``graph``/
``flowchart`` headers, ``A["label"]``, ``A{"label"}``, ``A("label")`` nodes, and ``-->``,
``-- "label" -->`` and ``-->|label|`` edges. Nothing here imports Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NODE = (
    r"(?P<{0}>[A-Za-z_]\w*)(?:(?P<{0}_open>[\[{{(])"
    r'(?:"(?P<{0}_quoted>[^"]*)"|(?P<{0}_bare>[^\]}})"]*))[\]}})])?'
)
_EDGE = re.compile(
    _NODE.format("a")
    + r'\s*(?:--\s*"(?P<label1>[^"]*)"\s*-->|-->\s*\|(?P<label2>[^|]*)\||-->)\s*'
    + _NODE.format("b")
    + r"\s*$"
)
_ALONE = re.compile(_NODE.format("a") + r"\s*$")


@dataclass
class Flowchart:
    """Nodes (id → label, and which are decisions) and edges (from, to, label), in order."""

    labels: dict[str, str] = field(default_factory=dict)
    decisions: set[str] = field(default_factory=set)
    edges: list[tuple[str, str, str]] = field(default_factory=list)

    def node(self, node_id: str, opener: str | None, label: str | None) -> None:
        if label is not None and opener is not None:
            self.labels[node_id] = label
            if opener == "{":
                self.decisions.add(node_id)
        else:
            self.labels.setdefault(node_id, node_id)

    def outgoing(self, node_id: str) -> list[tuple[str, str, str]]:
        return [e for e in self.edges if e[0] == node_id]


def _label(match: re.Match[str], name: str) -> str | None:
    quoted = match.group(f"{name}_quoted")
    return quoted if quoted is not None else match.group(f"{name}_bare")


def parse(source: str) -> Flowchart:
    """Read a Mermaid ``graph`` (the guide's subset); lines it does not know are skipped."""
    chart = Flowchart()
    for raw in source.splitlines()[1:]:  # the first line is the "graph LR" header
        line = raw.strip()
        if not line or line.startswith("%%"):
            continue
        match = _EDGE.match(line)
        if match:
            a, b = match.group("a"), match.group("b")
            chart.node(a, match.group("a_open"), _label(match, "a"))
            chart.node(b, match.group("b_open"), _label(match, "b"))
            chart.edges.append((a, b, (match.group("label1") or match.group("label2") or "")))
            continue
        alone = _ALONE.match(line)
        if alone:
            chart.node(alone.group("a"), alone.group("a_open"), _label(alone, "a"))
    return chart


def _lines_of(label: str) -> list[str]:
    return [part.strip() for part in re.split(r"<br\s*/?>", label) if part.strip()]


def _short(label: str) -> str:
    return _lines_of(label)[0] if _lines_of(label) else label


def draw(source: str) -> list[str]:
    """The flowchart in ``source`` as lines of text (empty when it has no nodes)."""
    chart = parse(source)
    if not chart.labels:
        return []
    drawn: set[str] = set()
    out: list[str] = []
    leaves = {n for n in chart.labels if not chart.outgoing(n)}
    node: str | None = next(iter(chart.labels))
    while node is not None and node not in drawn:
        drawn.add(node)
        first, *rest = _lines_of(chart.labels[node]) or [node]
        out.append(("◆ " if node in chart.decisions else "▸ ") + first)
        out.extend(f"  {line}" for line in rest)
        edges = chart.outgoing(node)
        onward = next((e for e in edges if e[1] not in drawn and e[1] not in leaves), None)
        if onward is None:  # nothing carries on: a lone leaf is still the way down
            onward = next((e for e in edges if e[1] not in drawn and len(edges) == 1), None)
        side = [e for e in edges if e is not onward]
        for n, (_, target, label) in enumerate(side):
            corner = "└" if n == len(side) - 1 and onward is None else "├"
            words = f"{label} → " if label else "→ "
            back = " ↺" if target in drawn else ""
            out.append(f"  {corner} {words}{_short(chart.labels[target])}{back}")
            if target in leaves:
                drawn.add(target)
        if onward is not None:
            out.append(f"  ↓ {onward[2]}".rstrip())
            node = onward[1]
        else:
            node = None
    missing = [n for n in chart.labels if n not in drawn]
    out.extend(f"▸ {_short(chart.labels[n])}" for n in missing)  # never drop a node silently
    return out


__all__ = ["Flowchart", "draw", "parse"]
