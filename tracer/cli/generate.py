"""Writes the source compiled ahead of time: ``python -m tracer.cli.generate``.

Run it after changing an event class (and ``schema.json``, see :mod:`tracer.trace.event_schema`):
it writes :mod:`tracer.trace.event_methods` (each event class's ``__init__`` and ``to_dict``,
:mod:`tracer.trace.event_code`), :mod:`tracer.model.lean_methods` (the ``__init__`` of each lean
record an import makes, :func:`tracer.model.record_init.lean_init`) and
:mod:`tracer.trace.event_sound` (each line kind's quick soundness test,
:mod:`tracer.trace.sound_code`, and each event class's ``checked_dict``,
:mod:`tracer.trace.checked_code`). Until then the classes still work, their methods compiled at
start-up, and a test says the files are stale. It sits with the command line, on top of every
layer, because it imports them all: the trace's events, and the importers for their records.
"""

from __future__ import annotations

from pathlib import Path

from tracer.model.record_init import LEAN, lean_module
from tracer.trace.checked_code import sound_module
from tracer.trace.event_code import event_plan, methods_module
from tracer.trace.event_schema import SCHEMA_PATH
from tracer.trace.events import KNOWN, Event

#: Where the generated files live: beside the code that reads them.
HERE = Path(__file__).resolve().parents[1] / "trace"
MODEL = HERE.parent / "model"


def lean_records() -> dict[str, tuple[object, ...]]:
    """The lean records an import makes (each registers itself when its class is created)."""
    # Both importers: a claude-code import no longer loads tracer.trace.requests, whose
    # RebuiltRequest only an API log's import makes; nor tracer.trace.tokens, whose records
    # it makes only for two calls with nothing between them (show and the exports use them).
    import tracer.importers.api_log.importer
    import tracer.importers.claude_code.importer
    import tracer.trace.tokens  # noqa: F401

    return dict(LEAN)


def main() -> None:
    (HERE / "event_methods.py").write_text(methods_module((Event, *KNOWN)), encoding="utf-8")
    (MODEL / "lean_methods.py").write_text(lean_module(lean_records()), encoding="utf-8")
    schema = Path(SCHEMA_PATH).read_bytes()
    (HERE / "event_sound.py").write_text(sound_module(schema, plans()), encoding="utf-8")


def plans() -> dict[str, tuple[object, ...]]:
    """Each event class's plan, by name: what its ``checked_dict`` is written from."""
    return {cls.__name__: plan for cls in KNOWN if (plan := event_plan(cls)) is not None}


if __name__ == "__main__":
    main()
