"""Wire-level logs of ``/v1/messages`` calls (claude-trace's format) as traces.

:mod:`.importer` is the entry (``tracer import api-log``). :mod:`.threads` sorts the requests into
agent loops, :mod:`.sse` rebuilds each streamed response from its events, :mod:`.wire` lines a
logged request up with the internal message list, and :mod:`.loop` walks the main loop request by
request as the journey's steps.
"""
