"""Table of contents and tour planning: what pressing ``s`` the first time and starting
``tracer tour`` cost, over every bundled recording.

Both index each bundled recording (kinds only, no JSON decoded), read each scenario's ``section``
and ``notes``, and run the section rule on every step; the tour also builds the seven checkpoint
questions (decoding the events their answers come from) and runs the doctor on the fault
recording it opens. Each happens once per session (scenario files are parsed once and cached),
so the target is the first run: under 250 ms on the shared 2-core test machine, without a
thread. The last line printed holds the first run and the medians of the later ones.

Run: ``python bench/tour_planning.py [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tracer.chapter.guide import load_guide
from tracer.files.paths import bundled_recordings
from tracer.tour.stops import plan_stops
from tracer.view.sections import bundled_contents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs (at least 2)")
    args = parser.parse_args()
    args.repeat = max(args.repeat, 2)
    guide = load_guide()
    contents_ms, tour_ms = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        contents = bundled_contents(guide)
        middle = time.perf_counter()
        stops = plan_stops(guide, contents)
        end = time.perf_counter()
        contents_ms.append((middle - start) * 1000)
        tour_ms.append((end - middle) * 1000)
    recordings = len(bundled_recordings())
    print(f"{recordings} recordings, {len(contents.sections)} sections, {len(stops)} tour stops")
    print(
        f"first run: contents {contents_ms[0]:.1f} ms, tour plan {tour_ms[0]:.1f} ms; "
        f"later runs (median): contents {statistics.median(contents_ms[1:]):.1f} ms, "
        f"tour plan {statistics.median(tour_ms[1:]):.1f} ms"
    )


if __name__ == "__main__":
    main()
