"""The command line: the top layer, which reaches every other one and is reached by none.

:mod:`.console` is the console script (it turns a Ctrl-C during start-up into one line);
:mod:`.main` parses the arguments and hands each sub-command to its own ``command`` module,
importing it only when it runs, so ``tracer --version`` loads nothing else. :mod:`.record`,
:mod:`.read` (``show``, ``hooks``, ``validate``) and :mod:`.show` are the sub-commands that have no
package of their own. This module imports nothing, so the console script starts fast.
"""
