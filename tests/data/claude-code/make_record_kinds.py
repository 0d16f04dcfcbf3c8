"""Writes the transcripts of issue 34's record shapes (run it to regenerate them).

Each is a shape found in real sessions the importer had never seen, made small and in our own
words, in the record envelope of the Claude Code version that wrote it (see ``make.py``, whose
:class:`Transcript` writes the envelope).

Run: ``python tests/data/claude-code/make_record_kinds.py``.
"""

from __future__ import annotations

from make import Transcript, text, use


def result_without_content_2_0() -> None:
    """2.0.21: an MCP tool that returned nothing. Its ``tool_result`` block has no ``content``
    key at all, and the record no ``toolUseResult``."""
    t = Transcript("2.0.21")
    u = t.user(None, "Ask the notes server for today's notes.")
    a = t.assistant(u, "msg_n1", text("I will ask the notes server."))
    a = t.assistant(a, "msg_n1", use("toolu_n1", "mcp__notes__today"))
    r = t.user(a, [{"tool_use_id": "toolu_n1", "type": "tool_result"}])
    t.assistant(r, "msg_n2", text("The notes server has nothing for today."))
    t.write("v2.0-mcp-result-without-content.jsonl")


def main() -> None:
    result_without_content_2_0()


if __name__ == "__main__":
    main()
