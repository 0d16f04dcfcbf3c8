"""Exports: a trace in the formats other tools read.

``markdown`` writes a walk-through to read or paste into an issue, ``mermaid`` a sequence diagram
of the model, the loop and the tools, ``otlp`` OpenTelemetry spans (OTLP/JSON, GenAI semantic
conventions) for Jaeger, Langfuse or Phoenix. All three read the trace through
:mod:`tracer.export.walk`, which groups its events into turns. :mod:`tracer.export.html` is the
fourth, and reads it differently: a web page that replays the trace step by step, its text
rendered by the replay's own layers.
"""
