"""``tracer import claude-code DIR``: every session of a project folder, one trace each.

Claude Code keeps a project's sessions side by side in ``~/.claude/projects/<project>/``, one
``<session>.jsonl`` each (what ``--list`` finds). Their subagent files (``agent-<id>.jsonl``
beside them in 2.0, ``<session>/subagents/`` since 2.1) are no sessions of their own: each is
imported inside the session that ran it. An empty file was never written to.

Each session is imported on its own
(:func:`tracer.importers.claude_code.importer.import_claude_code`) into
``<output>/<session>.trace.jsonl``. A file that cannot be imported does not stop the rest: its row
in the summary says why, in one line. The command shows a progress bar while it works (on a terminal
only) and the table at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracer.errors import UserError
from tracer.text.cells import cells, clip


@dataclass
class Row:
    """One session of the folder, imported or not."""

    session: Path
    output: Path
    counts: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    error: str | None = None


def folder_sessions(folder: Path) -> list[Path]:
    """The sessions directly in ``folder``, by name: no agent files, no empty files."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        if path.name.startswith("agent-"):
            continue
        try:
            if not path.is_file() or path.stat().st_size == 0:
                continue
        except OSError:
            continue  # vanished while listing
        out.append(path)
    return out


def import_folder(
    folder: Path,
    output: Path,
    progress: Callable[[int, int, Path], None] | None = None,
    rows: list[Row] | None = None,
) -> list[Row]:
    """Import every session of ``folder`` into ``output/``; ``progress(done, total, session)``
    is called before each one and once at the end. Each row is added to ``rows`` as soon as its
    session is done, so a caller interrupted part-way (Ctrl-C) still has the ones before."""
    from tracer.importers.claude_code.importer import import_claude_code

    rows = [] if rows is None else rows
    sessions = folder_sessions(folder)
    if not sessions:
        raise UserError("no Claude Code session (*.jsonl) in this folder", folder)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot make the folder for the traces ({exc.strerror})", output) from None
    for k, session in enumerate(sessions):
        if progress is not None:
            progress(k, len(sessions), session)
        row = Row(session, output / f"{session.stem}.trace.jsonl")
        try:
            report = import_claude_code(session, row.output)
        except UserError as exc:
            row.error = str(exc)
        else:
            row.counts = dict(report.counts)
            row.skipped = sum(report.skipped.values())
            if report.unreadable:  # "ok" only for a trace every command opens
                row.error = report.unreadable_text()
        rows.append(row)
    if progress is not None:
        progress(len(sessions), len(sessions), sessions[-1])
    return rows


_COLUMNS = (
    ("model calls", "model calls"),
    ("tool results", "tool results"),
    ("subagent loops", "subagents"),
    ("tool blocks not in the trace", "missing"),
)


def summary_table(rows: list[Row], width: int = 38) -> list[str]:
    """The table printed at the end: one row per session, then the totals."""
    head = f"{'session':<{width}}" + "".join(f"{name:>14}" for _, name in _COLUMNS)
    head += f"{'skipped':>9}  result"
    lines = [head, "-" * cells(head)]
    totals = dict.fromkeys([key for key, _ in _COLUMNS], 0)
    for row in rows:
        name = clip(row.session.stem, width - 1)
        line = name + " " * (width - cells(name))
        for key, _ in _COLUMNS:
            n = row.counts.get(key, 0)
            totals[key] += n
            line += f"{n if row.error is None else '-':>14}"
        line += f"{row.skipped if row.error is None else '-':>9}  "
        line += f"error: {row.error}" if row.error else f"ok → {row.output.name}"
        lines.append(line)
    failed = sum(r.error is not None for r in rows)
    total = f"{f'{len(rows)} sessions':<{width}}" + "".join(
        f"{totals[key]:>14}" for key, _ in _COLUMNS
    )
    total += f"{sum(r.skipped for r in rows if r.error is None):>9}  "
    total += f"{len(rows) - failed} imported" + (f", {failed} failed" if failed else "")
    lines += ["-" * cells(head), total]
    return lines


def progress_bar(done: int, total: int, session: Path, width: int = 30) -> str:
    """``[#########.....]  3/10  <session>``, for a carriage-return redraw on a terminal."""
    filled = round(width * done / total) if total else width
    return f"\r[{'#' * filled}{'.' * (width - filled)}] {done:>3}/{total}  {clip(session.stem, 40)}"
