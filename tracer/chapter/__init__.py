"""The chapter's material and rules, read from ``chapters/ch12/``.

Above the agent (a scenario scripts the agent's model and tools) and below everything that shows
a trace. :mod:`.guide` reads the guide (what each section teaches, its checkpoints, its table of
common errors) and :mod:`.guide_checks` holds it to its schema; :mod:`.glossary` holds the book's
words every Chinese string is checked against; :mod:`.differences` lists where tracer and Claude
Code 2.1.88 part ways; :mod:`.error_paths` names the paths that build an error result;
:mod:`.scenario` (with :mod:`.scenario_checks` and :mod:`.scenario_responses`) reads a scenario
file: the prompt, the scripted model, the faults.
"""
