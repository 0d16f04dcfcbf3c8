"""``tracer import api-log``: a wire-level log of ``/v1/messages`` calls becomes a trace.

Unlike a transcript, a wire log (claude-trace's RawPair lines: ``{request, response,
logged_at}``) holds every request exactly as it was sent, so here resending is not rebuilt but
*seen*: the ``messages`` array grows by one assistant turn and one tool-result turn per call, and
the whole of it goes out every time. Each main-loop request becomes a resending step whose body
the trace rebuilds byte for byte (the import checks this against the logged body and reports it).

Three things need care:

* **side calls and other threads**: Claude Code also calls a small model for quota probes
  (``max_tokens: 1``), titles and spinner words; those are counted, listed in the header and
  noted in the trace, never a turn. A log can also hold more than one real conversation (a
  subagent, a second session): each thread (same model, same first message, sending tools) is an
  agent loop of its own. One is imported (``--thread N``, by default the busiest) and the others
  are listed, so each can be imported in turn;
* **moving cache markers**: each request puts ``cache_control`` on its last blocks, so a message
  resent later is not byte-identical to its first sending. A changed message is written again
  under a new uuid and takes the old one's place in the internal list;
* **secrets**: no header of any request or response is copied into the trace.

This module reads the pairs, picks the thread and writes the trace's header; the requests
themselves become steps in :mod:`tracer.importers.api_log.loop`, and which request belongs to
which thread is worked out in :mod:`tracer.importers.api_log.threads`.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.errors import UserError
from tracer.importers.api_log.loop import emit_log
from tracer.importers.api_log.threads import find_threads, pairs_of, side_call, thread_key
from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport, created_at, epoch_of
from tracer.importers.shapes import api_log_record
from tracer.trace.events import Header
from tracer.trace.line_check import LineCheck
from tracer.trace.writer import TraceWriter

__all__ = [
    "NOTES",
    "import_api_log",
    "import_every_thread",
]

NOTES = (
    "Requests are the logged bodies; headers (and with them any credentials) are never copied.",
    "A wire log has no raw tool output: each tool_run's output is the tool_result content sent.",
    "Side calls (other models, max_tokens 1 probes, other threads) are noted, not turns.",
)
_AGENT = re.compile(r"claude-cli/([\w.\-]+)")


def import_every_thread(path: str | Path, output: str | Path) -> list[tuple[Path, ImportReport]]:
    """Each conversation of the log into a trace of its own: the busiest into ``output``, each
    other one into ``<output>.thread-N.trace.jsonl`` beside it (a log often holds a subagent's
    loop, or a second session, beside the main one)."""
    output = Path(output)
    first = import_api_log(path, output)
    done = [(output, first)]
    numbers = [int(n) for n in re.findall(r"^  thread (\d+):", "\n".join(first.notes), re.M)]
    if not numbers:
        return done
    stem = output.name.removesuffix(".jsonl").removesuffix(".trace")
    for number in numbers:
        target = output.with_name(f"{stem}.thread-{number}.trace.jsonl")
        done.append((target, import_api_log(path, target, thread=number)))
    where = "; ".join(f"{report.source_thread} → {out}" for out, report in done)
    first.notes.append(f"each conversation went into its own trace: {where}")
    return done


def import_api_log(path: str | Path, output: str | Path, thread: int | None = None) -> ImportReport:
    """Import the log ``path`` into the trace ``output``.

    ``thread`` picks one conversation (numbered as :func:`find_threads` lists them); by default
    the one with the most requests. The others are listed in the report and noted in the trace.
    """
    path = Path(path)
    report = ImportReport(source=str(path))
    pairs = pairs_of(read_jsonl(path, report, api_log_record), report)
    if not pairs:
        raise UserError("no /v1/messages request/response pairs: not an API log", path)
    threads = find_threads(pairs)
    if thread is not None and not 1 <= thread <= len(threads):
        raise UserError(
            f"there is no thread {thread}: the log holds {len(threads)} conversation(s) with tools",
            path,
        )
    if threads:
        chosen = threads[thread - 1] if thread else max(threads, key=lambda t: len(t.lines))
        main_thread = chosen.key
    else:  # no request sent tools: the busiest thread of all is the loop
        chosen = None
        main_thread = Counter(thread_key(p[1]["body"]) for p in pairs).most_common(1)[0][0]
    main = {
        line
        for line, req, _ in pairs
        if thread_key(req["body"]) == main_thread and req["body"].get("max_tokens") != 1
    }
    if not main:  # every call is a probe (max_tokens 1): there is no loop to import
        raise UserError("no main-loop request (every call is a max_tokens 1 probe)", path)
    others = [t for t in threads if t is not chosen]
    if len(threads) > 1:
        report.notes.append(
            f"the log holds {len(threads)} conversations; this trace holds "
            f"thread {chosen.number if chosen else '?'} (--thread N imports one alone)"
        )
        report.notes += [("* " if t is chosen else "  ") + t.describe() for t in threads]
    report.source_thread = f"thread {chosen.number}" if chosen else "the log"
    agent = next(
        (
            m.group(1)
            for _, req, _ in pairs
            if (m := _AGENT.search(str(_header(req, "user-agent"))))
        ),
        None,
    )
    side = [side_call(line, req, resp, others) for line, req, resp in pairs if line not in main]
    source = {
        "kind": "import",
        "format": "api-log",
        "path": str(path),
        "version": agent,
        "notes": list(NOTES),
        "side_calls": side,
        "skipped": dict(report.skipped),
    }
    if len(threads) > 1 and chosen is not None:
        source["thread"] = chosen.number
        source["threads"] = [
            {
                "number": t.number,
                "model": t.model,
                "requests": len(t.lines),
                "tool_calls": t.tool_calls,
                "prompt": t.prompt[:200],
            }
            for t in threads
        ]
    start = epoch_of(pairs[0][1].get("timestamp"))
    check = LineCheck()  # the readers' checks, as each line is written (see claude_code)
    with TraceWriter(
        output,
        Header(created=created_at(start), source=source, tracer_version=__version__, paths=None),
        keep_time=True,
        flush=False,
        atomic=True,
        check=check,
    ) as writer:
        b = emit_log(path, pairs, main, writer, report, others)
    report.count("side calls", len(side))
    report.count("events", b.events)
    report.unreadable = check.finish()
    return report


def _header(request: dict[str, Any], name: str) -> Any:
    headers = request.get("headers")
    if not isinstance(headers, dict):
        return None
    return next((v for k, v in headers.items() if str(k).lower() == name), None)
