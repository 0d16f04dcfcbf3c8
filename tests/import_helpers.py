"""What the import tests share: import one of our own small transcripts and read it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracer.doctor import run_doctor
from tracer.files.paths import ROOT
from tracer.importers.claude_code.importer import import_claude_code
from tracer.importers.output import ImportReport
from tracer.trace.reader import TraceReader
from tracer.trace.schema import validate_trace

DATA = Path(__file__).parent / "data" / "claude-code"
"""Our own transcripts, in the record shapes of each Claude Code version (see ``make.py``)."""
TRANSCRIPTS = sorted(
    p for p in DATA.rglob("*.jsonl") if p.stat().st_size and not p.name.startswith("agent-")
)
"""Our own main-session transcripts (a subagent's ``agent-*`` file and empty files aside)."""
SHARED = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"
SOURCES = TRANSCRIPTS + (sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else [])
"""Every main-session transcript we have: ours, and the real ones in ``../shared`` if present."""


def import_ours(name: str | Path, tmp_path: Path) -> tuple[list[Any], ImportReport, Path]:
    """Import ``DATA / name``; the trace must validate. Its events, the report, its path."""
    out = tmp_path / "t.jsonl"
    report = import_claude_code(DATA / name, out)
    assert validate_trace(out)[1] == []
    return list(TraceReader(out)), report, out


def records_of(name: str | Path) -> list[dict[str, Any]]:
    """The records of ``DATA / name``, to damage or plant into before writing them back."""
    return [json.loads(x) for x in (DATA / name).read_text(encoding="utf-8").splitlines() if x]


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    """``records`` as a transcript at ``path``: one JSON object a line."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def of_kind(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def doctor_errors(out: Path) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in run_doctor(TraceReader(out)) if f.severity == "error"]
