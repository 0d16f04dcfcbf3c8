"""Claude Code's own transcript of a recorded session, kept beside the trace.

Claude Code 2.1.88 appends each session to ``CLAUDE_CONFIG_DIR/projects/<folder>/<id>.jsonl``
(``src/utils/sessionStorage.ts``). The recorder's scratch config folder holds exactly one such
session; it is copied beside the trace, every line through the redactor, so that
``tracer import claude-code`` of it can be held against what crossed the wire. An output too
large for the model is saved whole in ``<id>/tool-results/`` beside it, and the
``<persisted-output>`` preview names that file: those files are kept too, in
``NAME.claude-code.tool-results/`` (the scratch folder the preview names is gone by then).
"""

from __future__ import annotations

import json
from pathlib import Path

from tracer.trace.redact import Redactor


def find_transcript(config: Path) -> Path | None:
    """The session's transcript: the largest ``.jsonl`` directly in a project folder."""
    projects = config / "projects"
    if not projects.is_dir():
        return None
    found = [p for p in projects.glob("*/*.jsonl") if p.is_file() and not p.is_symlink()]
    return max(found, key=lambda p: p.stat().st_size, default=None)


def keep_transcript(config: Path, target: Path, redact: Redactor) -> Path | None:
    """Copy the transcript to ``target`` (secrets redacted); ``None`` when there is none."""
    source = find_transcript(config)
    if source is None:
        return None
    lines = []
    for line in source.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            lines.append(json.dumps(redact(json.loads(line)), ensure_ascii=False))
        except ValueError:
            lines.append(redact.text(line))
    target.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return target


def keep_saved_outputs(config: Path, target: Path, redact: Redactor) -> list[Path]:
    """Copy the outputs Claude Code saved whole into the folder ``target`` (redacted)."""
    found = (
        sorted(p for p in (config / "projects").glob("*/*/tool-results/*") if p.is_file())
        if (config / "projects").is_dir()
        else []
    )
    kept = []
    for source in found:
        target.mkdir(exist_ok=True)
        copy = target / source.name
        text = source.read_text(encoding="utf-8", errors="replace")
        copy.write_text(redact.text(text), encoding="utf-8")
        kept.append(copy)
    return kept
