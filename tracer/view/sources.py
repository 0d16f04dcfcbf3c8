"""More traces for the picker (``O``): the ones opened lately, and this machine's Claude Code
sessions.

* **Recent files**: every trace the reader opened by name (``tracer replay FILE``, the picker,
  the palette) is remembered in ``recent.json`` beside the tour's progress
  (:func:`tracer.files.paths.state_dir`: ``$TRACER_STATE_DIR``, else the XDG state folder), the
  newest first, at most :data:`KEEP`. The bundled recordings are listed anyway, so they are not
  remembered.
* **Claude Code sessions**: the transcripts
:func:`tracer.importers.claude_code.sessions.find_sessions` finds
  under ``~/.claude/projects`` (or ``$CLAUDE_CONFIG_DIR``), newest first, each named by its
  project and titled by its first prompt. A transcript is no trace: choosing one imports it
  (:func:`tracer.importers.claude_code.importer.import_claude_code`, as ``tracer import
  claude-code`` does) into ``imported/`` in the same state folder, and the replay opens the result.

File access only; no Textual here.
"""

from __future__ import annotations

import json
from pathlib import Path

from tracer.files.paths import bundled_recordings

#: How many recent files are kept.
KEEP = 8
#: How many Claude Code sessions the picker lists (the newest).
SESSIONS = 10
RECENT_FILE = "recent.json"


def _state() -> Path:
    from tracer.files.paths import state_dir

    return state_dir()


def recent_traces(state: Path | None = None) -> list[Path]:
    """The traces opened lately that still exist, newest first."""
    try:
        data = json.loads(((state or _state()) / RECENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    paths = [Path(p) for p in data if isinstance(p, str)] if isinstance(data, list) else []
    return [p for p in paths if p.is_file()][:KEEP]


def remember(path: Path, state: Path | None = None) -> None:
    """Put ``path`` first among the recent files (a bundled recording is not kept)."""
    path = Path(path).resolve()
    bundled = {p.resolve() for p in bundled_recordings()}
    if path in bundled or not path.is_file():
        return
    folder = state or _state()
    kept = [str(path)] + [str(p) for p in recent_traces(folder) if p.resolve() != path]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / (RECENT_FILE + ".tmp")
        temporary.write_text(json.dumps(kept[:KEEP], ensure_ascii=False) + "\n", "utf-8")
        temporary.replace(folder / RECENT_FILE)
    except OSError:
        pass  # a list of recent files is a convenience: never a reason to stop the replay


def claude_sessions(limit: int = SESSIONS) -> list[tuple[Path, str, str]]:
    """The newest Claude Code sessions: (transcript, project/session name, first prompt)."""
    from tracer.importers.claude_code.sessions import find_sessions, first_prompt

    out = []
    for session in find_sessions()[:limit]:
        name = f"{session.path.parent.name}/{session.path.stem[:8]}"
        out.append((session.path, name, first_prompt(session.path)))
    return out


def import_session(transcript: Path, state: Path | None = None) -> Path:
    """Import a Claude Code transcript into a trace the replay can open; return its path.

    Raises :class:`~tracer.errors.UserError` for a transcript that cannot be imported."""
    from tracer.files.paths import TRACE_SUFFIX
    from tracer.importers.claude_code.importer import import_claude_code

    folder = (state or _state()) / "imported"
    folder.mkdir(parents=True, exist_ok=True)
    output = folder / f"{transcript.parent.name}-{transcript.stem}{TRACE_SUFFIX}"
    import_claude_code(transcript, output)
    return output
