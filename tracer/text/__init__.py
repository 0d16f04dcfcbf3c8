"""Text for a terminal: how wide it is, and what is safe to print.

The lowest layer, beside :mod:`tracer.errors`: it imports nothing of tracer's. :mod:`.cjk` and
:mod:`.cells` measure text the way a terminal draws it (a Chinese character takes two cells);
:mod:`.printable` turns control and bidi characters from someone else's file into visible escapes
before they reach a terminal or a page.
"""
