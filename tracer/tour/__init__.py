"""The guided tour (``tracer tour``): chapter 12 in the book's order, with its checkpoints.

Built on the replay (:mod:`tracer.replay`): :mod:`.stops` plans the stops and keeps the reader's
progress, :mod:`.checkpoints` turns a guide checkpoint into a question answered by the trace,
:mod:`.cards` and :mod:`.words` say what the cards show, :mod:`.screens` draws them and
:mod:`.command` registers the command.
"""
