"""Reading files tracer did not write, and finding the ones it ships.

One layer above :mod:`tracer.text`. :mod:`.untrusted` reads bytes and JSON from a file that may
be anything (a fifo, a huge line, bad UTF-8, deep nesting) and says what is wrong in one line,
reading an unusual line the careful way (:mod:`.careful`); :mod:`.yamlfile` does the same for
YAML (the chapter's guide, scenarios and glossary); :mod:`.paths` finds the bundled chapter
material and recordings, in a clone or in an installed wheel, and the folder tracer keeps its
state in.

The bounds on what is read are here, where both readers of JSON reach them: :mod:`.untrusted`
loads :mod:`.careful` when it first needs it, so neither can take them from the other.
"""

MAX_LINE = 64 * 1024 * 1024
"""Bytes in one JSON line. The largest real line is a request or a persisted tool output (a
few MB); a line bigger than this is damage, and decoding it would cost seconds and gigabytes."""
MAX_DEPTH = 64
"""Nesting of arrays and objects in one JSON value. Real traces nest about 8 deep."""
MAX_FILE = 1024 * 1024 * 1024
"""Bytes in a file read whole (a transcript or an API log being imported). The longest real
Claude Code sessions are a few hundred MB; a bigger file would cost gigabytes to hold and split."""
MAX_TEXT = 4 * 1024 * 1024
"""Bytes in a hand-written text file (a scenario); big files of that kind are not hand-written."""
