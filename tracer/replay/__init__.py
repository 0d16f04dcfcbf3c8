"""``tracer replay``: step through a recorded session, step by step.

The replay is layered so that most of it is plain Python, tested without a terminal:

* :mod:`~tracer.replay.steps` indexes a trace's steps lazily and holds the cursor logic (next,
  previous, next turn, next journey step (① to ④), go to, follow a growing file);
* :mod:`~tracer.replay.context` gathers what one step needs from the trace (the messages it points
  at, the requests before it) by reading only nearby events;
* :mod:`~tracer.replay.render` and :mod:`~tracer.replay.render_tools` turn a step into Rich text,
  one function per stage;
* :mod:`~tracer.replay.diagnose` decides when the doctor runs and where its findings sit;
* :mod:`~tracer.replay.app` (a small coordinator) and ``widgets/`` (one widget a file) are the
  Textual screen, built by :func:`tracer.replay.factory.make_app` (the command line and the tests
  share it);
* :mod:`~tracer.replay.beside` (pure: the rows' cursor, the summary) and
  :mod:`~tracer.replay.beside_screen` are ``tracer replay A --beside B``, two runs side by side on
  the rows of :mod:`tracer.compare`, built by :func:`tracer.replay.beside_command.make_beside_app`.

The replay never imports ``anthropic``: it only reads files.
"""
