"""The real Claude Code, recorded at the wire: ``tracer record --claude-code``.

tracer's own loop mirrors Claude Code 2.1.88; this package runs the real one and records what it
sends. A loopback HTTP server plays a scenario's scripted answers (:mod:`.server`, the scripted
transport behind a real socket) or passes requests through to the real API (:mod:`.proxy`);
every request and response is captured as an API log (:mod:`.capture`) and turned into a trace
by the API-log importer as it goes, so a recording of the real Claude Code is read with the same
``show``, ``doctor``, ``replay`` and exports as one of tracer's loop. :mod:`.launch` finds the
``claude`` program and starts it headless, walled in; :mod:`.record` ties them together.
"""
