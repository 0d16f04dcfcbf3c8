"""``tracer replay`` and ``tracer tour``: the Textual app that steps through a recorded session.

The top of the screen layers: everything it shows is computed in :mod:`tracer.view` (the steps,
the cursor, the Rich text of each stage), which never imports Textual, so this package only
draws and takes keys:

* :mod:`.factory` builds the app (:func:`~tracer.replay.factory.make_app`, shared by the command
  line and the tests) from one typed :class:`~tracer.replay.options.ReplayOptions`; :mod:`.app`
  is a small coordinator and :mod:`.screen` lays the panels out, each bound to its cursor and
  language;
* :mod:`.help` makes a help screen's rows from the bindings, each found by its ``id``;
* ``widgets/`` holds one widget a file, each owning its keys, the tour's bar and screens among
  them; :mod:`.keys` and :mod:`.palette` gather the app's keys and commands;
* :mod:`.beside_screen` and :mod:`.beside_app` are ``tracer replay A --beside B``, two runs side
  by side on the rows of :mod:`tracer.compare`, built by
  :func:`tracer.replay.beside_command.make_beside_app`;
* :mod:`.command` and :mod:`.tour_command` are the two sub-commands.

The replay never imports ``anthropic``: it only reads files.
"""
