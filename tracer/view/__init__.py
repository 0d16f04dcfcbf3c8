"""What a step of a trace looks like, without a terminal: the replay's model and its text.

Everything here is plain Python and Rich text; nothing imports Textual, the replay or the tour,
so the terminal app (:mod:`tracer.replay`), the tour (:mod:`tracer.tour`) and the web page
(:mod:`tracer.export.html`) all stand on it.

* :mod:`.steps` indexes a trace's steps lazily and moves the cursor (next, previous, next turn,
  next journey step ① to ④, go to, follow a growing file); :mod:`.nesting` steps into a
  subagent's loop; :mod:`.state` is the cursor with what the screen needs around it;
* :mod:`.context` gathers what one step needs from the trace (the messages it points at, the
  requests before it) by reading only nearby events;
* :mod:`.render` and the ``render_*`` modules turn a step into Rich text, one function per stage;
  :mod:`.fold`, :mod:`.wrap`, :mod:`.raw` and :mod:`.attempts` are their parts;
* :mod:`.sections`, :mod:`.section_text` and :mod:`.chapter_panel` say which section of the
  chapter a step belongs to and what the chapter panel shows; :mod:`.flowchart` draws the guide's
  diagrams as text;
* :mod:`.diagnose` decides when the doctor runs and where its findings sit; :mod:`.search`
  finds text in steps; :mod:`.opening` and :mod:`.sources` choose what to open;
* :mod:`.i18n` reads the word tables (:mod:`.i18n_words`, :mod:`.i18n_keys`) in zh or en.
"""
