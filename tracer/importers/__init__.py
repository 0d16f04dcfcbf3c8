"""Importers: other people's logs of an agent loop, turned into tracer traces.

``claude_code`` reads Claude Code's own transcripts (``~/.claude/projects/**.jsonl``), ``api_log``
reads wire-level request/response logs (claude-trace's format). Both emit the same journey a live
recording does, through :class:`~tracer.importers.builder.TraceBuilder`, so ``show``, ``hooks``,
``validate``, the doctor and the replay need to know nothing about where a trace came from.
"""
