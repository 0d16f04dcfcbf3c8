"""Finding traces to open: the bundled recordings, a folder's traces, and a file not written yet.

The picker (key ``O``, or the command palette) lists :func:`choices`: the chapter's recordings,
the fault recordings, any trace in the current folder, the traces opened lately and this
machine's Claude Code sessions (:mod:`tracer.view.sources`), each with the title its recording
gives in the current language (the ``session_start`` event's ``title``, else the scenario name;
a session's first prompt).
``tracer replay DIR`` prints :func:`traces_in` with the same titles.

``--follow`` may start before the recorder has written anything, as ``tail -F`` does: the app
then runs on a :class:`WaitingReader` (an empty trace) and swaps in the real one when the file
appears with its header line. Pure file access; no Textual here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracer.errors import UserError
from tracer.files.paths import TRACE_SUFFIX, bundled_recordings, short_name

#: How many bytes of a trace's first lines are read for its title.
HEAD_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Choice:
    """One trace the picker offers: its path, what to call it, and its title."""

    path: Path
    name: str
    title: dict[str, str]
    bundled: bool
    kind: str = ""
    problem: str = ""
    """Why it would not open ("" when it is a trace): the picker and ``tracer replay DIR`` list
    an empty or binary ``*.trace.jsonl`` as what it is, not as a good trace."""
    """The picker's group: "bundled", "faults", "here", "recent" or "claude" (a Claude Code
    transcript, imported when chosen)."""

    @property
    def group(self) -> str:
        if self.kind:
            return self.kind
        if self.bundled:
            return "faults" if self.name.startswith("faults/") else "bundled"
        return "here"

    def words(self, lang: str) -> str:
        """Its title, or (no trace) what is wrong with it."""
        if self.problem:
            return f"✗ {self.problem}"
        return self.title.get(lang) or self.title.get("en") or ""

    def label(self, lang: str) -> str:
        words = self.words(lang)
        return f"{self.name}  {words}" if words else self.name


def trace_title(path: Path) -> dict[str, str]:
    """The recording's title in each language, from its first two lines ({} when unreadable)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        lines = head.split(b"\n", 2)
        header = json.loads(lines[0])
        first = json.loads(lines[1]) if len(lines) > 2 else {}
    except (OSError, ValueError, IndexError):
        return {}
    title = first.get("title") if isinstance(first, dict) else None
    if isinstance(title, dict):
        return {k: str(v) for k, v in title.items() if isinstance(v, str)}
    source = header.get("source") if isinstance(header, dict) else None
    name = source.get("name") if isinstance(source, dict) else None
    return {"en": str(name)} if name else {}


def traces_in(folder: Path) -> list[Path]:
    """The traces directly in ``folder``, by name."""
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(TRACE_SUFFIX) and p.is_file())
    except OSError:
        return []


def choices(cwd: Path | None = None, *, more: bool = True) -> list[Choice]:
    """What the picker lists: bundled recordings (scenarios, then faults), ``cwd``'s traces,
    then (``more``) the recent files and the local Claude Code sessions."""
    out = [Choice(p, short_name(p), trace_title(p), True) for p in bundled_recordings()]
    seen = {p.resolve() for p in bundled_recordings()}
    for path in traces_in(cwd or Path.cwd()):
        if path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(_trace_choice(path, path.name))
    if not more:
        return out
    from tracer.view.sources import claude_sessions, recent_traces

    for path in recent_traces():
        if path.resolve() not in seen:
            seen.add(path.resolve())
            out.append(_trace_choice(path, path.name, "recent"))
    for path, name, prompt in claude_sessions():
        out.append(Choice(path, name, {"en": prompt, "zh": prompt}, False, "claude"))
    return out


def _trace_choice(path: Path, name: str, kind: str = "") -> Choice:
    """A ``*.trace.jsonl`` file as the picker lists it: its title, or why it is no trace."""
    from tracer.trace.line_index import trace_problem

    problem = trace_problem(path)
    if problem is not None:
        return Choice(path, name, {}, False, kind, problem.message)
    return Choice(path, name, trace_title(path), False, kind)


def describe_folder(folder: Path, lang: str) -> str:
    """``tracer replay DIR``: the traces in the folder, one a line, with their titles (a file
    that is no trace, empty or binary, with what is wrong with it)."""
    found = traces_in(folder)
    if not found:
        raise UserError("no traces (*.trace.jsonl) in this folder", folder)
    rows = (f"{path}  {_trace_choice(path, path.name).words(lang)}".rstrip() for path in found)
    return "\n".join(rows)


class WaitingReader:
    """An empty trace standing in for one that does not exist yet (``--follow``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] = {}
        self.torn_line: int | None = None

    def __len__(self) -> int:
        return 0

    def refresh(self) -> int:
        return 0

    def kind_of(self, index: int) -> str | None:
        return None

    def ready(self) -> bool:
        """Whether the real trace can be opened: the file exists and its header line is whole."""
        try:
            with self.path.open("rb") as handle:
                return b"\n" in handle.read(HEAD_BYTES)
        except OSError:
            return False
