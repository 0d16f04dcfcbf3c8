"""What the doctor's tests share: the fault scenarios, recorded once, and a way to edit a trace.

Each ``chapters/ch12/faults/NN-<rule>[-variant].yaml`` breaks one rule, named in its file name.
:func:`fault_traces` records them fresh, through the real SDK and the scripted transport with the
API's request rules as validator, so a test fails if a rule, a fault or the validator drifts. It
is made once a session, and the ``test_doctor_*`` files that use it (they name this module in
``pytest_plugins``) share the ``doctor`` xdist group, so the faults are recorded once, on one
worker. :func:`_rewrite` changes every event of a trace after its header and writes the copy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tracer.agent.api_rules import validate_request
from tracer.files.paths import CHAPTERS_DIR

FAULTS_DIR = CHAPTERS_DIR / "ch12" / "faults"
FAULTS = sorted(FAULTS_DIR.glob("*.yaml"))


def record_fault(path: Path, out_dir: Path, **kwargs: Any) -> Path:
    from tracer.chapter.scenario import load_scenario
    from tracer.record.run import record_scenario

    output = out_dir / f"{path.stem}.trace.jsonl"
    record_scenario(load_scenario(path), output, validator=validate_request, **kwargs)
    return output


@pytest.fixture(scope="session")
def fault_traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("faults")
    return {path.stem: record_fault(path, out) for path in FAULTS}


def _rewrite(trace: Path, out: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    lines = trace.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    for event in events[1:]:
        change(event)
    out.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8"
    )
    return out
