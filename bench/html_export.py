"""The web page of a trace: export time, page size, and time to first paint in Chromium.

Two traces made as ``replay_latency.py`` makes them (the main walk's turn 2 repeated): 10 turns
and 10,000 turns (about 100,000 steps, a 50 MB trace). Each is exported with
``tracer export --format html`` (in process, timed), then opened from ``file://`` in Debian's
Chromium through Playwright, a fresh page each time, with every non-``file:`` request aborted.
Two times per opening, read from the page's own Performance timeline: first contentful paint,
and the moment the first step is drawn (``page_navigation.js`` marks ``tracer-first-step``).

The page draws only the step on screen (its data in chunks, the first chunk before the script),
so the goal is that the 10,000-turn page paints within 2x the 10-turn one. The figure is the
last line printed.

With ``--beside`` each page is the comparison of the trace with a copy whose git status names
another branch (``tracer export A --beside B``, :mod:`tracer.export.html.beside`): two runs of
10,000 turns aligned step by step, whose first paint should also stay within 2x the 10-turn one.

Run: ``python bench/html_export.py [--turns 10000] [--repeat 5] [--beside]`` (needs chromium and
playwright; ``TRACER_CHROMIUM`` names another Chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from replay_latency import make_big_trace

from tracer.export.html.beside import beside_html
from tracer.export.html.page import page_html
from tracer.export.html.payload import build
from tracer.files.paths import MAIN_RECORDING

ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PAINT = """() => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const step = performance.getEntriesByName('tracer-first-step')[0];
  return fcp && step ? [fcp.startTime, step.startTime] : null;
}"""


def export(trace: Path, out: Path, beside: Path | None = None) -> tuple[float, float, int]:
    """Wall and CPU seconds of one export (on a shared machine the CPU time is the steadier),
    and the page's size; with ``beside``, the comparison page of the two."""
    start, cpu = time.perf_counter(), time.process_time()
    text = page_html(build(trace)) if beside is None else beside_html(trace, beside)
    out.write_text(text, encoding="utf-8")
    return time.perf_counter() - start, time.process_time() - cpu, out.stat().st_size


def paints(context: Any, page_path: Path, repeat: int) -> tuple[float, float]:
    """Median first contentful paint and first step drawn, in ms, over ``repeat`` openings."""
    fcp, drawn = [], []
    for _ in range(repeat):
        page = context.new_page()
        asked: list[str] = []

        def route(r: Any, asked: list[str] = asked) -> None:
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                asked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.goto(page_path.as_uri(), wait_until="commit")
        deadline = time.monotonic() + 60
        found = None
        while found is None and time.monotonic() < deadline:
            found = page.evaluate(f"({PAINT})()")
            time.sleep(0.01)
        assert found is not None, f"{page_path.name}: no paint within 60 s"
        assert not asked, asked
        fcp.append(found[0])
        drawn.append(found[1])
        page.close()
    return statistics.median(fcp), statistics.median(drawn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--beside", action="store_true", help="time the comparison page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    exe = os.environ.get("TRACER_CHROMIUM") or shutil.which("chromium")
    if exe is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / MAIN_RECORDING.name
        shutil.copyfile(MAIN_RECORDING, source)  # the bundled one may be re-recorded meanwhile
        rows = {}
        for turns in (10, args.turns):
            trace = make_big_trace(folder / f"t{turns}.trace.jsonl", turns, source)
            other = None
            if args.beside:  # the same run, but for the branch its git status names
                other = folder / f"t{turns}-other.trace.jsonl"
                text = trace.read_text(encoding="utf-8")
                other.write_text(text.replace("On branch cmbt", "On branch trunk"), "utf-8")
            seconds, cpu, size = export(trace, folder / f"t{turns}.html", other)
            rows[turns] = {
                "export_s": seconds,
                "cpu_s": cpu,
                "bytes": size,
                "trace": trace.stat().st_size,
            }
        with sync_playwright() as driver:
            context = driver.chromium.launch_persistent_context(
                str(folder / "profile"), executable_path=exe, args=ARGS, headless=True
            )
            try:
                for turns in rows:  # one opening each first, to warm the browser up
                    paints(context, folder / f"t{turns}.html", 1)
                for turns in rows:
                    fcp, drawn = paints(context, folder / f"t{turns}.html", args.repeat)
                    rows[turns].update(fcp_ms=fcp, drawn_ms=drawn)
            finally:
                context.close()
    for turns, r in rows.items():
        print(
            f"{turns} turns: trace {r['trace'] / 1e6:.1f} MB, "
            f"export {r['export_s']:.1f} s (CPU {r['cpu_s']:.1f} s), "
            f"page {r['bytes'] / 1e6:.2f} MB ({r['bytes'] / r['trace']:.0%} of the trace), "
            f"first paint {r['fcp_ms']:.0f} ms, first step drawn {r['drawn_ms']:.0f} ms"
        )
    small, big = rows[10], rows[args.turns]
    print(
        f"html {'comparison ' if args.beside else ''}page: {args.turns}-turn / 10-turn first paint "
        f"{big['fcp_ms'] / small['fcp_ms']:.2f}x, "
        f"first step {big['drawn_ms'] / small['drawn_ms']:.2f}x (goal <= 2); "
        f"page {big['bytes'] / 1e6:.1f} MB, export {big['export_s']:.0f} s "
        f"(CPU {big['cpu_s']:.0f} s)"
    )


if __name__ == "__main__":
    main()
