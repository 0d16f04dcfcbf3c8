"""Finding Claude Code sessions on this machine, for ``tracer import claude-code --list``.

Claude Code keeps one transcript per session in ``<config>/projects/<project>/<session>.jsonl``,
where ``<config>`` is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` (some installs use
``~/.config/claude``) and ``<project>`` is the working directory with ``/`` replaced by ``-``.
Subagent transcripts live below ``<session>/subagents/`` and are not sessions of their own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tracer.errors import UserError
from tracer.untrusted import loads, open_regular


@dataclass(frozen=True, slots=True)
class Session:
    path: Path
    modified: float
    size: int

    def line(self, root: Path, prompt: str) -> str:
        when = datetime.fromtimestamp(self.modified).strftime("%Y-%m-%d %H:%M")
        rel = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path
        text = " ".join(prompt.split())
        text = text if len(text) <= 50 else text[:49] + "…"
        return f"{when}  {self.size / 1024:>8.1f} KB  {rel}  {text}"


def project_roots() -> list[Path]:
    """Where sessions are kept: ``$CLAUDE_CONFIG_DIR/projects`` if set, else the usual homes."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return [Path(p).expanduser() / "projects" for p in configured.split(",") if p.strip()]
    home = Path.home()
    return [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]


def find_sessions(roots: list[Path] | None = None) -> list[Session]:
    """Every ``<project>/<session>.jsonl`` under the roots, newest first."""
    found: list[Session] = []
    for root in roots if roots is not None else project_roots():
        if not root.is_dir():
            continue
        for path in root.glob("*/*.jsonl"):
            try:
                stat = path.stat()
            except OSError:
                continue  # a dangling link or a file that vanished while listing
            found.append(Session(path, stat.st_mtime, stat.st_size))
    return sorted(found, key=lambda s: s.modified, reverse=True)


def first_prompt(path: Path, max_lines: int = 200) -> str:
    """The first thing the user typed (read from the first lines only, so listing stays fast)."""
    try:
        # Through the reading layer's open: a FIFO named like a session must not stall --list.
        with os.fdopen(open_regular(path, "a session"), "rb") as fh:
            for number, raw in zip(range(1, max_lines + 1), fh, strict=False):
                try:
                    rec = loads(raw, path, number)
                except UserError:
                    continue
                if not isinstance(rec, dict) or rec.get("type") != "user" or rec.get("isMeta"):
                    continue
                message = rec.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(content, str) and not content.startswith("<"):
                    return content
    except (OSError, UserError):
        pass
    return ""
