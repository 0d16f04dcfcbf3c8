"""A session as OpenTelemetry spans, in the GenAI semantic conventions (and OpenInference's).

:mod:`.document` builds the whole OTLP/JSON document from a trace's turns
(:mod:`tracer.export.walk`), its spans made in one pass by :mod:`.walker`: an ``invoke_agent``
span for each loop (:mod:`.agent`), a ``chat <model>`` span for each request (:mod:`.chat`, with
what it sent from :mod:`.content` and :mod:`.openinference`), an ``execute_tool`` span for each
call (:mod:`.tool`), built from :mod:`.spans`. :mod:`.http` and :mod:`.send` post them to a
collector.
"""
