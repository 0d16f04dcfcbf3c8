"""``tracer export --format html``: a trace as one self-contained web page that replays it.

The page is the replay's second face, not a second replay: every word a step shows is computed
here, at export time, by the same pure layers the terminal app draws from
(:mod:`tracer.view.render`, :mod:`~tracer.view.section_text`, :mod:`~tracer.view.sections`,
:mod:`~tracer.view.context`), with the key hints left out
(:func:`tracer.view.fold.without_key_hints`). The browser only draws what it is given.

- :mod:`.spans` turns Rich ``Text`` into a render-neutral list of lines and styled segments;
- :mod:`.payload` walks the trace once and builds the data: the steps (in chunks, with their
  lines shared), the chapter panels (:mod:`.chapter`), the table of contents, and the meta's
  columns (:mod:`.meta`: the doctor's findings, the requests, the subagent loops);
- :mod:`.page` puts ``page.html``, ``page.css``, the script (``page_*.js``, one job a file,
  joined in one function) and the data together into one file (and ``--all`` into a folder
  with an index page).
- :mod:`.tour_payload` and :mod:`.tour_page` write ``tracer tour`` as a page of the ``--all``
  site (``tour.html``), its stops, cards and questions made by :mod:`tracer.tour` itself.

Like asciinema's player or Python Tutor, the page shows one step at a time and draws only that
step, so a 10,000-turn trace opens about as fast as a 10-turn one. Claude Code has no such page;
the nearest tools (claude-trace, claude-code-log) list messages rather than step through them.
"""
