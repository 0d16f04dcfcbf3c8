"""Reading files tracer did not write, and finding the ones it ships.

One layer above :mod:`tracer.text`. :mod:`.untrusted` reads bytes and JSON from a file that may
be anything (a fifo, a huge line, bad UTF-8, deep nesting) and says what is wrong in one line;
:mod:`.yamlfile` does the same for YAML (the chapter's guide, scenarios and glossary);
:mod:`.paths` finds the bundled chapter material and recordings, in a clone or in an installed
wheel, and the folder tracer keeps its state in.
"""
