"""Import speed: how fast a real Claude Code transcript becomes a trace.

Imports the largest transcript in ``../shared/fixtures/claude-code-transcripts`` (a path can be
given instead) into a temporary trace 20 times and keeps the best run. An import reads and parses
every record, walks the message DAG, and rebuilds, normalizes and hashes the request before every
model call (as the live loop sends it). Done naively that costs calls x history length; the importer
reuses the shared prefix (:mod:`tracer.importers.normal_cache`, :mod:`tracer.importers.body_hash`),
so a real session's import should be dominated by reading and writing JSON. The bench prints how
much of the best run parsing the source alone takes (as the import reads it, the cycle collector
paused), how much encoding and writing the trace's lines alone takes (the JSON writing an import
cannot avoid), what the writer's search for secrets and credential shapes costs (the same search,
batch by batch) and what the readers' checks of each line cost (the import asks them as it writes: a
trace they refuse is an error; asked as the import asks them, building each line's object as they
test it, less what building the objects costs anyway), all three measured on the lines the import
wrote, so the import's own figure is unchanged, what is left for our own bookkeeping (which still
holds encoding and hashing every rebuilt request's new messages once), events per second, and the
run's ratio, which holds across machines: the import's CPU time over a bare ``json.loads`` of the
same file's lines (read and split, one ``json.loads`` a line, nothing else), each the best of the
runs, the two timed one after the other in every run. It is the run alone, start-up left out:
what the whole process's ratio tends to as sessions grow. Times are CPU time of this process
(``time.process_time``): on a shared machine wall-clock time mostly measures the other
processes; the wall-clock figure is printed too.

That ratio leaves out what a user also waits for: starting Python and importing tracer. So the
bench then runs the whole ``tracer import claude-code`` command as its own process (the console
script's own code, byte-compiled modules, as installed) beside a process that only runs
``json.loads`` over the same file's lines (``python -c``), each ``--process-runs`` times, one after
the other in every run, and keeps the best CPU time (user + system, ``getrusage`` of the finished
child) of each. Their ratio is the figure on the last line, and the target (issue 34): at most
3x, at any load. Python's
own start-up is in both (``python -c pass`` is printed beside them): it is ours to add to, not
to cut.

Twenty runs, not five: on a shared machine a run is often slowed by the other tenants (the import,
which holds a whole session in memory, more than the bare parse, which holds one line), and the
best of five was still taken from a slowed stretch in one run of three. A run costs about 15 ms.
Before the last line, each run's own ratio (its import over its bare parse) is summed up as a
median and a range: how far apart they are says how much the machine moved.

Where it stands (issue 34, after its seventh pass; this project's 2-core machine, shared with
other sessions): in instructions, which no load moves, the whole process is 2.57x the
one-liner's on the largest transcript of the shared fixtures (813 KB, 846 events), 2.28-2.41x on
the full sessions of the public repository marot/spotter, from which that fixture's tail was cut
(Claude Code 2.1.39, 2.7 to 3.4 MB, 2,427 to 3,466 events, each with its agent files, the size
the issue names), and 3.34x on the transcript with the most events for its size (756 KB, 2,480
events, three trace lines for every line read). CPU time is higher than that and moves with what
else the machine, and the host under it, is doing: the import holds a whole session (about 4,600
more pages than the one-liner touches) and walks it several times, so contention for the caches
costs it more than it costs a parse that holds one line. On a quiet host the fixture came to
2.72x and the big sessions to 2.82-2.97x; on the same machine with its host busy (``python -c
pass`` at 12-14 ms instead of 8.5) the fixture came to 2.73-3.05x, the big sessions to
2.91-3.12x and the dense one to 3.70x (its run alone 5.8x): the target is not yet held at any
load. On small transcripts the start-up is most of it: 10 KB to 290 KB come to 2.92-3.01x in
instructions, about 2.7x in CPU on a quiet host.

Timings move with the load, so the passes are measured with ``valgrind --tool=callgrind``, which
counts instructions (``PYTHONHASHSEED=0``, byte-compiled modules): on the largest transcript the
whole process is 303.8M instructions against the one-liner's 118.3M, 2.57x (310.8M before the
seventh pass, 313.0M before the sixth, 333M before the fifth, 396M before the fourth); on the one
with the most events 379M against 114M, 3.34x (386M, 392M, 424M); on the largest full session
(fa812bfe, 3.4 MB) 586M against 249M, 2.35x (606M before the seventh pass). Where the 313M
went before the sixth pass, stage by stage (a harness that calls the import's stages one after
the other, so its figures are a little higher than the command's):

* 39M Python's own start (``python -c pass``), in both processes;
* about 105M the standard library and compiled modules the import needs, none of them ours to
  cut: ``re``, ``json`` and argparse (with gettext and locale) 38M; orjson 56M, as it imports
  ``dataclasses`` (with ``inspect``, ``ast``, ``dis``, ``tokenize``: 46M alone), ``uuid`` (with
  ``platform``) and ``datetime``; hashlib with OpenSSL 11M (the request hashes are SHA-256, as
  the live loop writes them); the Aho-Corasick wheel 1M;
* 55M tracer's own 68 modules (about 0.3M of import machinery each, and some 800 KB of byte code
  unmarshalled) and the import's parser. Neither ``typing``, ``pathlib``, ``threading`` nor
  ``signal`` is imported (annotations name ``typing`` only under ``TYPE_CHECKING``; paths are
  strings, :mod:`tracer.files.pathnames`; the writer's lock is ``_thread``'s;
  :mod:`tracer.interrupts` uses ``_signal``), nor anything an ordinary transcript does not use
  (a file that is no transcript, a secret in the environment, two calls with nothing between
  them load their modules when they meet them); the events and records are made by tracer's own
  field collector (:mod:`tracer.model.record_class`), each reading its fields once;
* 110M the import run, against the 48M the one-liner spends parsing (and 31M importing ``json``
  and ``re``): reading, parsing and checking the lines, the census and the message DAG 51M
  (orjson's own parse 15M; a short line's text is searched for long digit runs and many
  brackets, a long line's parsed value is walked instead, which costs less where long strings
  are most of the bytes); building the journey's events, rebuilding and hashing the requests,
  and writing, checking and searching the lines 59M (an event's ``new`` fills an unfrozen draft
  of its class with plain assignments, then makes it the class; the writer searches a line a
  second time only near what the quick pass found);
* about 29M at the end: freeing the session's objects (23M) and Python's own finalization
  (which the console script now skips for a batch command).

CPU time adds what instructions do not count: our process touches about 4,600 more pages than
the one-liner's on a 3 MB session (5,900 against 1,300: modules, the session held in memory,
OpenSSL), and a busy machine, which evicts caches between time slices, costs the larger process
more. What is left to cut is spread thin (no step of the run above a few per cent) or is
Python's: orjson's imports, OpenSSL's start, argparse's look-ups of its own words in gettext
catalogues, the import machinery (about 0.25M instructions a module, for 62 modules). The seventh
pass ends a batch command's process without Python's finalization (:mod:`tracer.cli.console`:
9M instructions, 2-5% of the CPU), gives the secret search whole prefixes as hints (``sk_live_``,
not ``sk_``: 4% of the events' writing on a big session), rebuilds a subagent's run from its
``agent_progress`` mirror only when it is imported from there, and counts a short line's
brackets by deleting them. Measured and left out: the census taken piece by piece as the file
is read, while its records are in the caches (a third fewer cache misses in a simulation, no CPU
that could be measured), one walk for the count check and the agent map (0.9M), the events'
written-out ``new`` kept to those an import makes (0.7M at start), ujson (its encoder is six
times slower than orjson's) and msgspec (a heavier import than orjson's). Left out on purpose
before: patching argparse's gettext (5M), the builtin SHA-256 (10M at start, but 3.5x slower per
byte hashed) and ``_bisect``, which would trade correctness or readability for the last per
cent, and letting the records go before the journey is written (a twentieth of the page faults,
nothing measurable of the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tracer.files.paths import ROOT
from tracer.importers.claude_code.importer import import_claude_code
from tracer.importers.jsonl import read_jsonl
from tracer.importers.output import ImportReport, collector_paused
from tracer.trace.compact_json import line_bytes_encoder
from tracer.trace.line_check import LineCheck
from tracer.trace.reader import TraceReader
from tracer.trace.redact import Redactor
from tracer.trace.writer import BULK_BUFFER

FIXTURES = Path(ROOT).parent / "shared" / "fixtures" / "claude-code-transcripts"
#: What the ``tracer`` console script runs (see its entry point); its arguments follow.
SCRIPT = ["-c", "import re, sys; from tracer.cli.console import script; sys.exit(script())"]
#: Installed, tracer's modules are byte-compiled: a run with PYTHONDONTWRITEBYTECODE set would
#: compile every module from source on every start (bench/startup.py does the same).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def largest_fixture() -> Path:
    found = sorted(FIXTURES.glob("*.jsonl"), key=lambda p: p.stat().st_size)
    if not found:
        sys.exit(f"no transcripts in {FIXTURES}: give one as an argument")
    return found[-1]


def writing_time(trace: Path, scratch: Path, runs: int) -> float:
    """Best CPU time to encode the objects of ``trace`` again and write them as the writer
    does (compact JSON as UTF-8 bytes, a buffered binary file), without any of the import's own
    work."""
    objects = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    encode = line_bytes_encoder()
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        with scratch.open("wb", buffering=BULK_BUFFER) as out:
            for obj in objects:
                out.write(encode(obj) + b"\n")
        best = min(best, time.process_time() - start)
    return best


def search_time(trace: Path, runs: int) -> float:
    """Best CPU time of the writer's search (a redactor from this environment, as an import's
    writer builds it) over the lines of ``trace``, in the writer's batches."""
    data = trace.read_bytes()
    batches, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start + BULK_BUFFER - 1) + 1 or len(data)
        batches.append(data[start:end])
        start = end
    best = float("inf")
    for _ in range(runs):
        begin = time.process_time()
        redactor = Redactor.from_environ()
        for batch in batches:
            redactor.lines_to_redact(batch)
        best = min(best, time.process_time() - begin)
    return best


def check_time(trace: Path, runs: int) -> float:
    """Best CPU time of the readers' line check (:class:`~tracer.trace.line_check.LineCheck`)
    as the import asks it of every line it writes (``object_of``, which builds each line's
    object as it tests it) over the events of ``trace``, less the best time ``to_dict`` takes to
    build the same objects: building them is the import's own work, checked or not."""
    objects = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    events = list(TraceReader(trace))
    best = build = float("inf")
    for _ in range(runs):
        begin = time.process_time()
        check = LineCheck()
        check.header(objects[0])
        for event in events:
            check.object_of(event)
        best = min(best, time.process_time() - begin)
        begin = time.process_time()
        for event in events:
            event.to_dict()
        build = min(build, time.process_time() - begin)
    return max(best - build, 0.0)


def process_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) one run of ``python args`` took, start-up included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env=ENV,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_processes(source: Path, scratch: Path, runs: int) -> tuple[float, float, float]:
    """Best CPU times of the whole ``tracer import claude-code`` process, of a ``json.loads``
    one-liner's process over the same file, and of ``python -c pass``."""
    command = [*SCRIPT, "import", "claude-code", str(source), "-o", str(scratch)]
    one_liner = ["-c", f"import json\nfor x in open({str(source)!r}, 'rb'): json.loads(x)"]
    process_cpu(command)  # once unmeasured: the .pyc files written, the files in the page cache
    whole = bare = empty = float("inf")
    for _ in range(runs):
        scratch.unlink(missing_ok=True)
        whole = min(whole, process_cpu(command))
        bare = min(bare, process_cpu(one_liner))
        empty = min(empty, process_cpu(["-c", "pass"]))
    return whole, bare, empty


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--process-runs", type=int, default=10)
    args = parser.parse_args()
    source = args.transcript or largest_fixture()
    best = wall = parse = bare = float("inf")
    events = 0
    pairs: list[float] = []  # each run's own ratio: how much the machine moved between runs
    with tempfile.TemporaryDirectory() as tmp:
        written = Path(tmp) / "bench.trace.jsonl"
        # Each run times the import and the bare parse side by side: on a shared machine the
        # speed drifts from second to second, and a ratio of two bests taken at different
        # moments measures the drift.
        for _ in range(args.runs):
            # A new file each time, as a real import writes: replacing the last run's output
            # would make the kernel free its pages inside the timed part.
            written.unlink(missing_ok=True)
            start, start_wall = time.process_time(), time.perf_counter()
            report = import_claude_code(source, written)
            took = time.process_time() - start
            best = min(best, took)
            wall = min(wall, time.perf_counter() - start_wall)
            events = report.counts["events"]
            start = time.process_time()
            for line in source.read_bytes().splitlines():
                json.loads(line)
            bare_took = time.process_time() - start
            bare = min(bare, bare_took)
            pairs.append(took / bare_took)
            # Read as the import reads (the collector paused, see collector_paused).
            with collector_paused():
                start = time.process_time()
                read_jsonl(source, ImportReport(source=str(source)))
                parse = min(parse, time.process_time() - start)
        write = writing_time(written, Path(tmp) / "lines.jsonl", args.runs)
        search = search_time(written, args.runs)
        checking = check_time(written, args.runs)
        whole, one_liner, empty = whole_processes(
            source, Path(tmp) / "whole.trace.jsonl", args.process_runs
        )
    size = source.stat().st_size / 1024
    print(
        f"source: {source.name} ({size:.0f} KB, {report.counts.get('model calls', 0)} model "
        f"calls), {events} events, best of {args.runs}: {best * 1000:.1f} ms CPU, "
        f"{wall * 1000:.1f} ms wall clock"
    )
    print(
        f"reading and parsing the JSON lines alone: {parse * 1000:.1f} ms "
        f"({parse / best:.0%} of the import)"
    )
    print(
        f"encoding and writing the trace's JSON lines alone: {write * 1000:.1f} ms "
        f"({write / best:.0%})"
    )
    print(
        f"searching the trace for secrets and credential shapes: {search * 1000:.1f} ms "
        f"({search / best:.0%})"
    )
    print(
        f"the readers' checks of each line written: {checking * 1000:.1f} ms "
        f"({checking / best:.0%})"
    )
    print(
        "our own bookkeeping (request hashing included): the other "
        f"{1 - (parse + write + search + checking) / best:.0%}"
    )
    print(f"import speed: {events / best:,.0f} events/s (CPU time)")
    print(f"bare json.loads of the source's lines: {bare * 1000:.1f} ms")
    print(
        f"each run's own ratio: median {statistics.median(pairs):.2f}x, "
        f"from {min(pairs):.2f}x to {max(pairs):.2f}x"
    )
    # Not the target: issue 34 sets it on the whole process (the last line). This is the run
    # alone, which a much larger session's whole process tends to (its start-up weighs less).
    print(f"import / bare json.loads, the run alone (start-up left out): {best / bare:.2f}x")
    print(
        f"whole processes, best of {args.process_runs}: tracer import claude-code "
        f"{whole * 1000:.1f} ms CPU, the json.loads one-liner {one_liner * 1000:.1f} ms, "
        f"python -c pass {empty * 1000:.1f} ms"
    )
    print(
        f"whole tracer import process / json.loads one-liner process: {whole / one_liner:.2f}x "
        "(the target is at most 3x)"
    )


if __name__ == "__main__":
    main()
