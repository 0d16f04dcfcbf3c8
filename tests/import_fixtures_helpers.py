"""What the import round-trip tests share: where the real fixtures are, and an import read back.

The fixtures live outside the repository (``../shared/fixtures``): a folder of Claude Code
transcripts and a claude-trace API log. :func:`_import` imports either kind and returns the events
the trace reader gives back; an import must leave no record its readers' checks refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracer.files.paths import ROOT
from tracer.trace.reader import TraceReader

FIXTURES = Path(ROOT).parent / "shared" / "fixtures"
TRANSCRIPTS = FIXTURES / "claude-code-transcripts"
API_LOG = FIXTURES / "api-logs" / "claude-trace-2025-05-29-weather-app-first19.jsonl"


def _import(source: Path, out: Path, fmt: str = "claude-code") -> list[Any]:
    if fmt == "claude-code":
        from tracer.importers.claude_code.importer import import_claude_code

        report = import_claude_code(source, out)
    else:
        from tracer.importers.api_log.importer import import_api_log

        report = import_api_log(source, out)
    assert report.unreadable == []  # the readers' checks, asked as the lines were written
    return list(TraceReader(out))


def _of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
