"""The importer's clock reads a source's times as the plain reading does, and never runs back.

``epoch_of`` lets Python read a UTC "Z" itself; every stamp, well formed or odd, must read as it
did when the "Z" was spelled "+00:00" first. The step clock dates a moment once, keeps the latest,
and rounds only where the time moved on, through a nested loop and back.
"""

from __future__ import annotations

import random


def test_a_stamp_reads_as_the_z_spelled_plus_zero_read_it() -> None:
    # epoch_of lets Python 3.11 read the "Z" of UTC itself; every stamp, well formed or odd,
    # must still read as it did when "Z" was spelled "+00:00" first.
    from datetime import datetime

    from tracer.importers.output import epoch_of

    def spelled(stamp: str) -> float | None:
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None

    stamps = [
        "2025-06-01T12:34:56.789Z",
        "2025-06-01T12:34:56Z",
        "2025-06-01T12:34:56.1234567Z",
        "2025-06-01T12:34:56.789+02:00",
        "2025-06-01T12:34:56,5Z",
        "20250601T123456Z",
        "2025-06-01Z",  # a date alone with a "Z": only the spelled form reads it
        "2025-06-01T12:34:56.789ZZ",
        "2025-06-01T12:34:56.789z",
        "2025-06-01T24:00:00Z",
        "Z",
        "",
        "not a time",
    ]
    for stamp in stamps:
        assert epoch_of(stamp) == spelled(stamp), stamp
    assert epoch_of("2025-06-01Z") is not None


def test_the_clock_dates_a_moment_as_logged_and_gives_its_epoch() -> None:
    # StepWriter.at reads the source's own time (ISO text or seconds) and keeps the moment
    # dated last: dating it again (a result's message, after its steps) changes nothing.
    from tracer.importers.builder import TraceBuilder

    b = TraceBuilder(lambda event: event)
    assert b.at(None) is None and b.t == 0.0  # undated: nothing starts the clock
    start = "2025-01-01T00:00:00.000Z"
    assert b.at(start) == 1735689600.0 and b.t == 0.0
    later = "2025-01-01T00:00:01.5Z"
    assert b.at(later) == 1735689601.5 and b.t == 1.5
    assert b.at(later) == 1735689601.5 and b.t == 1.5  # the same moment again
    assert b.at(start) == 1735689600.0 and b.t == 1.5  # earlier: t never runs back
    assert b.at("not a time") is None and b.t == 1.5
    assert b.at(1735689603.25) == 1735689603.25 and b.t == 3.25  # seconds, as an API log has


def test_the_clock_skips_rounding_only_where_it_could_not_move_on() -> None:
    # StepWriter.at rounds a moment only when it is later than any seen: t must still be the
    # plain rule, the largest rounded offset so far, through a nested loop and back.
    from tracer.importers.builder import TraceBuilder

    rng = random.Random(7)
    epochs = [1.7e9 + rng.choice([0.0, 0.0004, 0.0005, 0.0015]) + rng.randrange(0, 90) / 7]
    epochs += [epochs[-1], *(1.7e9 + rng.randrange(0, 9000) / 1000 for _ in range(300))]
    outer = TraceBuilder(lambda event: event)
    builder, inner, expected = outer, None, 0.0
    for k, epoch in enumerate(epochs):
        if k == 100:
            builder = inner = outer.nested()
        builder.at(epoch)
        if k == 200 and inner is not None:
            outer.adopt(inner)
            builder = outer
        expected = max(expected, round(epoch - epochs[0], 3))
        assert builder.t == expected, k
