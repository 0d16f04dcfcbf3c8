"""The guided tour (``tracer tour``): chapter 12 in the book's order, with its checkpoints.

The pure walk through the chapter, on top of :mod:`tracer.view` and below the replay, which draws
it (its bar and screens are widgets in :mod:`tracer.replay.widgets`, its command
:mod:`tracer.replay.tour_command`). :mod:`.stops` plans the stops and keeps the reader's
progress, :mod:`.checkpoints` turns a guide checkpoint into a question the trace answers,
:mod:`.landings` finds the step that shows it, :mod:`.cards` and :mod:`.words` say what the
cards show. The web page's tour (:mod:`tracer.export.html`) reads the same modules.
"""
