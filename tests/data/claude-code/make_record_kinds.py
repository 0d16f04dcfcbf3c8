"""Writes the transcripts of issue 34's record shapes (run it to regenerate them).

Each is a shape found in real sessions the importer had never seen, made small and in our own
words, in the record envelope of the Claude Code version that wrote it (see ``make.py``, whose
:class:`Transcript` writes the envelope).

Run: ``python tests/data/claude-code/make_record_kinds.py``.
"""

from __future__ import annotations

from make import Transcript, bash_raw, text, tokens, use


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


OUTPUT_LIMIT = (
    "API Error: Claude's response exceeded the 32000 output token maximum. To configure this "
    "behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable."
)


def output_limit_then_tools_2_0() -> None:
    """2.0.21: the response's two Read calls streamed whole, then the output limit cut it off.
    Claude Code wrote a ``<synthetic>`` API-error record after the calls and ran them anyway:
    their results hang off the error record, and the next call answers them."""
    t = Transcript("2.0.21")
    u = t.user(None, "Compare the two config files.")
    a = t.assistant(u, "msg_l1", text("I will read both files."), usage=tokens(3, 8000, 200, 9))
    for tid, name in (("toolu_l1", "a.toml"), ("toolu_l2", "b.toml")):
        read = use(tid, "Read", file_path=f"/home/dev/app/{name}")
        a = t.assistant(a, "msg_l1", read, usage=tokens(3, 8000, 200, 32000))
    e = t.assistant(
        a,
        "err-l1",
        text(OUTPUT_LIMIT),
        model="<synthetic>",
        usage=tokens(0, 0, 0, 0),
        isApiErrorMessage=True,
    )
    r = t.result(e, "toolu_l1", "1\tport = 80", {"type": "text", "file": {"numLines": 1}})
    r = t.result(r, "toolu_l2", "1\tport = 8080", {"type": "text", "file": {"numLines": 1}})
    answer = text("a.toml uses port 80, b.toml 8080.")
    t.assistant(r, "msg_l2", answer, usage=tokens(3, 8300, 60, 12))
    t.write("v2.0-output-limit-then-tools.jsonl")


def resumed_from_the_text_half_2_1() -> None:
    """2.1.39: a response split over two records, its text and an ``Agent`` call. The session
    was stopped before the call was answered and resumed; the new prompt hangs off the text
    half, and the next request's prompt (12,000 + 30 tokens) is the first's plus that text and
    the prompt, with no room for the call."""
    t = Transcript("2.1.39")
    u = t.user(None, "Survey the test folder.")
    a = t.assistant(u, "msg_h1", text("I will ask a subagent."), usage=tokens(3, 12000, 0, 8))
    survey = use("toolu_h1", "Agent", description="Survey tests", prompt="List the tests.")
    t.assistant(a, "msg_h1", survey, usage=tokens(3, 12000, 0, 60))
    u = t.user(a, "Never mind the subagent: just list tests/ yourself.")
    a = t.assistant(
        u, "msg_h2", use("toolu_h2", "Bash", command="ls tests"), usage=tokens(3, 12011, 0, 20)
    )
    r = t.result(
        a, "toolu_h2", "test_a.py\ntest_b.py", {"stdout": "test_a.py\ntest_b.py", "stderr": ""}
    )
    t.assistant(
        r, "msg_h3", text("Two tests: test_a.py and test_b.py."), usage=tokens(3, 12040, 0, 12)
    )
    t.write("v2.1-resumed-from-the-text-half.jsonl")


def retried_and_abandoned_2_1() -> None:
    """2.1.38: two branches off the path. A response whose Edit call never ran, then the same
    request answered again (a retry); later a response whose two calls ran, results and all,
    and a new prompt hung off the result before it instead (abandoned)."""
    t = Transcript("2.1.38")
    u = t.user(None, "Tidy the imports in app.py.")
    a = t.assistant(u, "msg_c1", use("toolu_c1", "Read", file_path="/home/dev/app/app.py"))
    r = t.result(a, "toolu_c1", "1\timport os, sys", {"type": "text"})
    t.assistant(r, "msg_c2", use("toolu_c2", "Edit", file_path="/home/dev/app/app.py"))
    a = t.assistant(r, "msg_c3", use("toolu_c3", "Edit", file_path="/home/dev/app/app.py"))
    r = t.result(a, "toolu_c3", "The file has been updated.", {"type": "update"})
    gone = t.assistant(r, "msg_c4", use("toolu_c4", "Bash", command="ruff check app.py"))
    gone = t.result(gone, "toolu_c4", "All checks passed!", bash_raw("All checks passed!"))
    gone = t.assistant(gone, "msg_c5", use("toolu_c5", "Bash", command="git add app.py"))
    t.result(gone, "toolu_c5", "", bash_raw(""))
    u = t.user(r, "Stop there: do not run anything else.")
    t.assistant(u, "msg_c6", text("Stopped: app.py is tidied and nothing else was run."))
    t.write("v2.1-retried-and-abandoned-branches.jsonl")


def main() -> None:
    result_without_content_2_0()
    output_limit_then_tools_2_0()
    resumed_from_the_text_half_2_1()
    retried_and_abandoned_2_1()


if __name__ == "__main__":
    main()
