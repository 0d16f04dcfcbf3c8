"""Where tracer still differs from Claude Code 2.1.88: the list beside the guide.

``chapters/<chapter>/differences.yaml`` names each difference that is left (an id, the step kind
where it shows, the scenarios that show it) and says, in Chinese and in English, what tracer does,
what 2.1.88 sends and why. The guide loader reads it (``guide.differences``) and the replay's
chapter panel lists the ones of the step it shows, so the page never teaches tracer's behaviour
as Claude Code's without saying so. The facts come from the 2.1.88 source and from playing the
bundled scenarios to the real one.

Pure and light, like :mod:`tracer.chapter.glossary`: it reads one YAML file; a mistake in it is a
:class:`~tracer.errors.UserError` naming the key and its line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.chapter.guide_checks import GuideChecker
from tracer.chapter.guide_records import Text
from tracer.files.yamlfile import load_yaml


@dataclass(frozen=True)
class Difference:
    id: str
    stage: str
    """The step kind where the difference shows (the replay lists it there)."""
    scenarios: tuple[str, ...]
    tracer: Text
    """What tracer does."""
    claude_code: Text
    """What Claude Code 2.1.88 does or sends."""
    why: Text


def differences_path(guide_path: Path) -> Path:
    return guide_path.with_name("differences.yaml")


def load_differences(path: Path) -> tuple[Difference, ...]:
    """Read and check ``path``."""
    c = GuideChecker(path)
    top = c.mapping(load_yaml(path), "differences.yaml", {"differences"})
    out: list[Difference] = []
    for i, node in enumerate(c.sequence(top, "differences", "differences.yaml")):
        where = f"differences[{i}]"
        # ``cases`` and ``varies`` are the differential suite's (tests/oracle/): read there.
        m = c.mapping(
            node,
            where,
            {"id", "stage", "tracer", "claude_code", "why"},
            {"scenarios", "cases", "varies"},
        )
        scenarios = m.get("scenarios") or []
        if not isinstance(scenarios, list) or not all(isinstance(s, str) for s in scenarios):
            raise c.fail(f"{where}.scenarios", "must be a list of scenario names", m, "scenarios")
        found = Difference(
            id=c.string(m, "id", where),
            stage=c.stage(m, "stage", where),
            scenarios=tuple(scenarios),
            tracer=c.text(m, "tracer", where),
            claude_code=c.text(m, "claude_code", where),
            why=c.text(m, "why", where),
        )
        if any(d.id == found.id for d in out):
            raise c.fail(f"{where}.id", f"duplicate id {found.id!r}", m, "id")
        out.append(found)
    return tuple(out)


def maybe_differences(guide_path: Path) -> tuple[Difference, ...]:
    """The list beside a guide, or none when that guide has none."""
    path = differences_path(guide_path)
    return load_differences(path) if path.is_file() else ()


def of_stage(differences: Any, stage: str) -> list[Difference]:
    """The differences that show at a step of kind ``stage``."""
    return [d for d in differences or () if d.stage == stage]


__all__ = ["Difference", "differences_path", "load_differences", "maybe_differences", "of_stage"]
