"""Two runs side by side: which step of one trace answers which step of the other.

- :mod:`.align` pairs the steps of two traces by turn and by step of the journey (pure: lists of
  keys in, rows out), and says what differs;
- :mod:`.keys` reads a trace into those keys (each step's turn of the main loop, its stage, and
  a digest of what it recorded, the fields that vary from run to run left out);
- :mod:`.twins` names the good run a bundled fault breaks, so ``--beside`` needs no second name;
- :mod:`.beside` holds the rows' cursor and the summary, and :mod:`.render_beside` one side of a
  row as Rich text, lit where it differs.

It stands on :mod:`tracer.view` (a step's keys and text are the replay's own) and imports no
Textual: the web page's comparison (``tracer export A --beside B``) uses it, and so does the
terminal's (:mod:`tracer.replay.beside_screen`).
"""
