"""Claude Code's own transcript of a recorded session, kept beside the trace.

Claude Code 2.1.88 appends each session to ``CLAUDE_CONFIG_DIR/projects/<folder>/<id>.jsonl``
(``src/utils/sessionStorage.ts``). The recorder's scratch config folder holds exactly one such
session; it is copied beside the trace, every line through the redactor, so that
``tracer import claude-code`` of it can be held against what crossed the wire. An output too
large for the model is saved whole in ``<id>/tool-results/`` beside it, and the
``<persisted-output>`` preview names that file: those files are kept too, in
``NAME.claude-code.tool-results/`` (the scratch folder the preview names is gone by then).

The config folder is writable by ``claude`` and so by every command it runs, and the recorder
reads it afterwards, as root perhaps: a command could leave a link there to ``/etc/shadow`` or to
another user's files. So the walk follows no link (folders nor files), takes only regular files,
and reads at most :data:`MAX_KEPT` bytes of each.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tracer.trace.redact import Redactor

#: The most read from one file of the config folder.
MAX_KEPT = 64 * 1024 * 1024


def _folders(folder: Path) -> list[Path]:
    """The folders directly in ``folder``, links left out."""
    try:
        with os.scandir(folder) as entries:
            return sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _files(folder: Path, suffix: str = "") -> list[Path]:
    """The regular files directly in ``folder`` (ending in ``suffix``), links left out."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                Path(e.path)
                for e in entries
                if e.is_file(follow_symlinks=False) and e.name.endswith(suffix)
            )
    except OSError:
        return []


def read_own(path: Path) -> str | None:
    """The text of a regular file, opened without following a link; ``None`` otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], MAX_KEPT
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(fd)


def find_transcript(config: Path) -> Path | None:
    """The session's transcript: the largest ``.jsonl`` directly in a project folder."""
    found = [p for folder in _folders(config / "projects") for p in _files(folder, ".jsonl")]
    return max(found, key=lambda p: p.lstat().st_size, default=None)


def keep_transcript(config: Path, target: Path, redact: Redactor) -> Path | None:
    """Copy the transcript to ``target`` (secrets redacted); ``None`` when there is none."""
    source = find_transcript(config)
    text = read_own(source) if source is not None else None
    if text is None:
        return None
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.dumps(redact(json.loads(line)), ensure_ascii=False))
        except ValueError:
            lines.append(redact.text(line))
    target.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return target


def keep_saved_outputs(config: Path, target: Path, redact: Redactor) -> list[Path]:
    """Copy the outputs Claude Code saved whole into the folder ``target`` (redacted)."""
    kept = []
    for project in _folders(config / "projects"):
        for session in _folders(project):
            for source in _files(session / "tool-results"):
                if (session / "tool-results").is_symlink() or (text := read_own(source)) is None:
                    continue
                target.mkdir(exist_ok=True)
                copy = target / source.name
                copy.write_text(redact.text(text), encoding="utf-8")
                kept.append(copy)
    return kept
