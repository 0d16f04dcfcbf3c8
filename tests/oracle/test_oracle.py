"""The differential suite: a bundled scenario played to tracer's loop and to Claude Code 2.1.88,
and every difference in what they sent either listed in ``chapters/ch12/differences.yaml`` (what
tracer does, what 2.1.88 sends, why) or a failure. The default run plays two scenarios; every
bundled one is a slow test, which also fails on a listed difference no longer seen (fixed: take
it out of the list). Needs the real ``claude`` (see ``tests/claude_helpers.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from claude_helpers import real_claude
from oracle_helpers import DIFFERENCES, differences, listed, varying

from tracer.files.paths import bundled_scenarios

pytestmark = pytest.mark.xdist_group("oracle")


def _name(path: Path, folder: Path) -> str:
    return f"{folder}/{path.stem}" if str(folder) != "." else path.stem


SCENARIOS = {_name(p, f): p for p, f in bundled_scenarios()}


def _play(name: str, tmp: Path, claude: Path) -> dict[str, tuple[object, object]]:
    from tracer.chapter.scenario import load_scenario
    from tracer.claude_code.record import record_scenario_claude_code
    from tracer.record.run import record_scenario

    stem = name.replace("/", "-")
    ours, theirs = tmp / f"{stem}.tracer.trace.jsonl", tmp / f"{stem}.cc.trace.jsonl"
    record_scenario(load_scenario(SCENARIOS[name]), ours)
    record_scenario_claude_code(load_scenario(SCENARIOS[name]), theirs, claude=claude)
    return differences(name, ours, theirs)


def _unlisted(found: dict[str, tuple[object, object]]) -> list[str]:
    known = listed()
    return [
        f"{key}\n  tracer: {json.dumps(a, ensure_ascii=False)[:300]}"
        f"\n  2.1.88: {json.dumps(b, ensure_ascii=False)[:300]}"
        for key, (a, b) in found.items()
        if key not in known
    ]


def test_the_list_is_well_formed() -> None:
    doc = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8"))
    ids = [entry["id"] for entry in doc["differences"]]
    assert len(ids) == len(set(ids))
    cases = []
    for entry in doc["differences"]:
        # The guide's reader checks the rest of an entry (tests/test_differences.py).
        assert {"id", "stage", "tracer", "claude_code", "why"} <= set(entry), entry["id"]
        assert set(entry) <= {
            "id",
            "stage",
            "scenarios",
            "tracer",
            "claude_code",
            "why",
            "cases",
            "varies",
        }
        for k in ("tracer", "claude_code", "why"):
            assert entry[k]["zh"] and entry[k]["en"], (entry["id"], k)
        cases += entry.get("cases", [])
    assert len(cases) == len(set(cases)), "a case is listed twice"
    assert {case.split()[0] for case in cases} <= set(SCENARIOS)


@pytest.mark.parametrize("name", ["12-empty-output", "02-error-path"])
def test_every_difference_is_listed(name: str, tmp_path: Path) -> None:
    claude = real_claude()
    found = _play(name, tmp_path, claude)
    assert _unlisted(found) == []


@pytest.mark.slow
def test_every_bundled_scenario_agrees_or_is_listed(tmp_path: Path) -> None:
    claude = real_claude()
    found: dict[str, tuple[object, object]] = {}
    for name in SCENARIOS:
        found.update(_play(name, tmp_path, claude))
    assert _unlisted(found) == []
    # test_resume's cases, and the ones that show only on some runs, are not called stale here.
    compared = {case for case in listed() if not case.endswith(" resume")} - varying()
    stale = sorted(compared - set(found))
    assert stale == [], "listed in differences.yaml but no longer seen (fixed?): " + str(stale)
