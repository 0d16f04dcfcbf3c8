"""Following a Claude Code session while it runs: ``import claude-code --follow`` and
``replay --follow <transcript.jsonl>``.

Claude Code appends to ``~/.claude/projects/<project>/<session>.jsonl`` as the loop runs, so the
trace can grow beside it. A trace is append-only, though, and the end of a live transcript is not
settled yet. :class:`LiveImport` therefore re-reads what is new, re-imports the whole session
(fast: the import is linear), and writes only the events that can no longer change:

* a **torn last line** (Claude Code is mid-write) waits in a buffer until its newline arrives;
* a record whose **parent is not written yet** (a tool result logged before its own
  ``tool_use``, issue point 2) waits, for a while, until the parent appears;
* everything up to the **last request** is settled: a request is built only from history that
  is complete. The response being streamed, its tool runs and the loop's ending are held back
  until the next request goes out (or until the follow stops: :meth:`LiveImport.finish`);
* a **compaction** in the middle is just more records: the walk follows the boundary back;
* the set-up step is written with the tools used by then (a live session may use more later).

If a settled event ever changes (the transcript was rewritten), nothing more is written and
:attr:`LiveImport.problem` says why: the trace never says what the session did not do.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.errors import UserError
from tracer.files.untrusted import MAX_FILE, MAX_LINE, UTF8_BOM, open_regular
from tracer.importers.claude_code.emit import NOTES, emit_all, header_source, start_epoch
from tracer.importers.claude_code.importer import analyse
from tracer.importers.jsonl import Record, parse_lines
from tracer.importers.output import ImportReport, created_at
from tracer.importers.shapes import clean_records
from tracer.trace.events import Event, Header
from tracer.trace.writer import TraceWriter, dumps

#: A record whose parent is missing waits only while it is among the file's last records.
PENDING_WINDOW = 64
#: Bytes read in one poll: a transcript that grew by gigabytes is read a step at a time.
READ_STEP = 16 * 1024 * 1024


def is_transcript(path: Path) -> bool:
    """True when ``path`` is not a tracer trace (its first line is no tracer header)."""
    try:  # not open(): a FIFO would block, and readline() on /dev/zero would never end
        fd = open_regular(path, "a transcript")
    except UserError:
        return False
    try:
        head = os.pread(fd, 1 << 20, 0)
    except OSError:
        return False
    finally:
        os.close(fd)
    first = head.split(b"\n", 1)[0].removeprefix(UTF8_BOM)
    try:
        data = json.loads(first) if first.strip() else {}
    except ValueError:
        return True
    return not (isinstance(data, dict) and data.get("format") == "tracer")


class LiveImport:
    """A transcript being written, and the trace that follows it."""

    def __init__(self, source: str | Path, output: str | Path) -> None:
        self.source, self.output = Path(source), Path(output)
        if self.source.is_dir():
            raise UserError("is a directory, not a Claude Code transcript", self.source)
        if self.source.exists():  # a FIFO or a device is refused now; a missing file is awaited
            os.close(open_regular(self.source, "a Claude Code transcript"))
        self.report = ImportReport(source=str(self.source))
        self.records: list[Record] = []
        self._offset = 0
        self._tail = b""
        self._lines = 0
        self._written: list[str] = []
        self.problem: str | None = None
        self._dirty = True
        self.events: list[Event] = []
        """The latest full import, settled or not."""
        self.read_new()
        head, start = self._header_source()
        self.writer = TraceWriter(
            self.output,
            Header(created=created_at(start), source=head, tracer_version=__version__, paths=None),
            keep_time=True,
            flush=False,
        )

    def _header_source(self) -> tuple[dict[str, Any], float | None]:
        """The header's ``source``, as the one-shot import writes it (the Claude Code version,
        the session id, its title, the notes on what a rebuilt request lacks), from what the
        transcript holds when the follow starts, and marked ``live``; and when the session
        began. What was skipped is left out: it is still growing when the header is written."""
        first = next((r for _, r in self.records if r.get("version")), {})
        source: dict[str, Any] = {
            "kind": "import",
            "format": "claude-code",
            "path": str(self.source),
            "version": first.get("version"),
            "session_id": first.get("sessionId"),
        }
        start = None
        if self.records:
            with contextlib.suppress(UserError):  # no message yet: what the records say
                t = analyse(list(self.records), self.source, ImportReport(source=str(self.source)))
                source, start = header_source(t), start_epoch(t)
                source.pop("skipped", None)
        source.setdefault("notes", list(NOTES))
        source["live"] = True
        return source, start

    # -- reading -------------------------------------------------------------------------------

    def read_new(self) -> int:
        """Parse the complete lines appended since the last call; return how many records."""
        try:
            size = os.stat(self.source).st_size
        except OSError:
            return 0  # not written yet (or moved away): wait
        if size < self._offset:  # the file was replaced: start over
            self._offset, self._tail, self._lines, self.records = 0, b"", 0, []
        if size == self._offset:
            return 0
        if size > MAX_FILE:  # what a whole-file import refuses, a followed one does too
            raise UserError(f"too large ({size:,} bytes; the limit is {MAX_FILE:,})", self.source)
        fd = open_regular(self.source, "a Claude Code transcript")
        try:
            chunk = os.pread(fd, min(size - self._offset, READ_STEP), self._offset)
        finally:
            os.close(fd)
        data = self._tail + chunk
        if not self._lines:  # no line read yet: a byte-order mark an editor wrote is no JSON
            data = data.removeprefix(UTF8_BOM)
        self._offset += len(chunk)
        cut = data.rfind(b"\n") + 1
        self._tail = data[cut:]  # a torn last line waits for its newline
        if len(self._tail) > MAX_LINE:
            line = self._lines + data[:cut].count(b"\n") + 1
            raise UserError(f"line too long (over {MAX_LINE:,} bytes)", self.source, line)
        lines = data[:cut].decode("utf-8", errors="replace").split("\n")[:-1]
        new, _ = parse_lines(lines, self._lines + 1, self.report, path=self.source)
        new = clean_records(new, self.report)
        self._lines += len(lines)
        self.records += new
        return len(new)

    def _size(self) -> int:
        try:
            return os.stat(self.source).st_size
        except OSError:
            return self._offset

    def _ready(self, final: bool) -> list[Record]:
        """The records whose parents are in: near the end, a child logged first waits."""
        if final:
            return self.records
        known = {r.get("uuid") for _, r in self.records}
        waiting: set[str] = set()
        ready: list[Record] = []
        start = max(0, len(self.records) - PENDING_WINDOW)
        for k, (number, rec) in enumerate(self.records):
            parent = rec.get("parentUuid")
            if (
                k >= start
                and isinstance(parent, str)
                and (parent not in known or parent in waiting)
            ):
                waiting.add(str(rec.get("uuid")))
                continue
            ready.append((number, rec))
        return ready

    # -- writing -------------------------------------------------------------------------------

    def _import(self, final: bool) -> list[Event]:
        records = self._ready(final)
        if not records:
            return []
        try:
            t = analyse(records, self.source, ImportReport(source=str(self.source)))
        except UserError:
            return []  # no message yet
        out: list[Event] = []

        def keep(event: Event) -> Event:
            out.append(event)
            return event  # later steps refer to it by seq, as with the trace writer

        emit_all(t, keep)
        return out

    def poll(self) -> int:
        """Read what is new and write the events it settled; return how many were written."""
        self._dirty = self.read_new() > 0 or self._dirty
        if self.problem is not None or not self._dirty:
            return 0
        self._dirty = False
        self.events = self._import(final=False)
        cut = max((i + 1 for i, e in enumerate(self.events) if e.kind == "request"), default=0)
        return self._write(self.events[:cut])

    def finish(self) -> int:
        """The follow stops: write everything, the loop's ending included, and close."""
        written = 0
        if self.problem is None:
            while self.read_new() or self._offset < self._size():
                pass  # every step still unread
            self.events = self._import(final=True)
            written = self._write(self.events)
        self.writer.close()
        return written

    @staticmethod
    def _settled(event: Event) -> str:
        """What must not change once written. The set-up step lists the tools the session
        uses, which a live session is still adding to: the list written first stays."""
        data = event.to_dict()
        if event.kind == "session_start":
            data.pop("tools", None)
        return dumps(data)

    def _write(self, events: list[Event]) -> int:
        for k, line in enumerate(self._written[: len(events)]):
            if self._settled(events[k]) != line:
                self.problem = (
                    f"{self.source}: the transcript changed under step data already "
                    f"written (event {k + 1}); restart the follow to see it whole"
                )
                return 0
        new = events[len(self._written) :]
        for event in new:
            self.writer(event)
            self._written.append(self._settled(event))
        if new:
            self.writer.flush()
        return len(new)


def follow_import(
    source: Path,
    output: Path,
    *,
    interval: float = 0.25,
    idle_exit: float | None = None,
    sleep: Any = None,
) -> LiveImport:
    """``import claude-code --follow``: poll until Ctrl-C (or ``idle_exit`` seconds without a
    new line), then write the rest.

    SIGTERM (``timeout``, ``kill``) and SIGHUP (the terminal closing) stop it as Ctrl-C does
    (:class:`tracer.interrupts.Interrupts`): the rest is written, not cut off with the
    process; a second signal while it is written is ignored. A signal is only noted, and the
    loop stops at its next turn: raised inside a write, it lost the lines the writer had taken
    out of its buffer (the header among them) while they counted as written."""
    import time

    from tracer.interrupts import Interrupts

    sleep = sleep or time.sleep
    idle = 0.0
    with Interrupts(raising=False) as stops:
        live = LiveImport(source, output)  # a signal now still leaves the header written
        try:
            while stops.received is None and (idle_exit is None or idle < idle_exit):
                before = live._offset
                live.poll()
                idle = 0.0 if live._offset != before else idle + interval
                sleep(interval)
        except KeyboardInterrupt:
            pass
        finally:
            live.finish()
    return live
