"""Finding Claude Code sessions on this machine, for ``tracer import claude-code --list``.

Claude Code keeps one transcript per session in ``<config>/projects/<project>/<session>.jsonl``,
where ``<config>`` is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` (some installs use
``~/.config/claude``) and ``<project>`` is the working directory with ``/`` replaced by ``-``.
Subagent transcripts (``agent-<id>.jsonl``, below ``<session>/subagents/`` since 2.1 and beside
the session in 2.0) are not sessions of their own, and neither is an empty file. A session whose
file changed in the last :data:`LIVE_SECONDS` is marked as still being written: Claude Code
appends to it while it runs, and ``--follow`` can watch it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tracer.errors import UserError
from tracer.files.untrusted import loads, open_regular
from tracer.text.cells import clip

#: A session written to this recently is taken as still running.
LIVE_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class Session:
    path: Path
    modified: float
    size: int

    def live(self, now: float | None = None) -> bool:
        """Still being written (changed within :data:`LIVE_SECONDS`)."""
        return (now if now is not None else time.time()) - self.modified < LIVE_SECONDS

    def line(self, root: Path, prompt: str, now: float | None = None) -> str:
        when = datetime.fromtimestamp(self.modified).strftime("%Y-%m-%d %H:%M")
        rel = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path
        mark = "live" if self.live(now) else "    "
        return f"{when} {mark} {self.size / 1024:>8.1f} KB  {rel}  {clip(prompt, 50)}"


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
            if path.name.startswith("agent-"):
                continue  # a subagent's transcript (2.0 keeps it beside the session)
            try:
                stat = path.stat()
            except OSError:
                continue  # a dangling link or a file that vanished while listing
            if stat.st_size == 0:
                continue  # nothing was ever written: not a session yet
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
                if (
                    not isinstance(rec, dict)
                    or rec.get("type") != "user"
                    or rec.get("isMeta")
                    or rec.get("isCompactSummary")
                    or rec.get("isSidechain")
                ):
                    continue
                message = rec.get("message")
                text = _prompt_of(message.get("content") if isinstance(message, dict) else None)
                if text:
                    return text
    except (OSError, UserError):
        pass
    return ""


def _prompt_of(content: object) -> str:
    """The typed text of a prompt: a string, or the first text block of a content list (with
    images mentioned); command and reminder markup (``<...>``) is not what the user typed."""
    if isinstance(content, str):
        return "" if content.startswith("<") else content
    if not isinstance(content, list):
        return ""
    blocks = [b for b in content if isinstance(b, dict)]
    if any(b.get("type") == "tool_result" for b in blocks):
        return ""
    texts = [
        str(b.get("text", ""))
        for b in blocks
        if b.get("type") == "text" and not str(b.get("text", "")).startswith("<")
    ]
    images = sum(b.get("type") == "image" for b in blocks)
    if not texts:
        return ""
    return f"[{images} image{'s' if images > 1 else ''}] {texts[0]}" if images else texts[0]
