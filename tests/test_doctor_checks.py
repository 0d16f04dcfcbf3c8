"""What the doctor's rules stand on: well-formed results, requests as sent, the guide's hints.

A tool_result block is malformed in each of the ways listed, and only those (the SDK's
ToolResultBlockParam requires no more than type and tool_use_id); text before the results breaks
the API's rule though every block is well formed. The requests the doctor checks are the ones
sent, its steps are numbered as ``show`` numbers them, and its hints are the guide's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from doctor_helpers import _rewrite

from tracer.cli.show import show_lines
from tracer.doctor import RULES, run_doctor
from tracer.doctor.facts import TraceFacts
from tracer.doctor.malformed import block_problems
from tracer.files.paths import MAIN_RECORDING
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

# The doctor's files share one xdist worker: doctor_helpers' fault_traces records the faults once.
pytestmark = pytest.mark.xdist_group("doctor")


def test_text_before_the_results_breaks_the_apis_rule(tmp_path: Path) -> None:
    blocks = {e.seq: e.block for e in TraceReader(MAIN_RECORDING) if e.kind == "mapping"}

    def text_first(event: dict[str, Any]) -> None:
        if event["kind"] == "message" and event.get("origin") == "tool_result":
            # The file stores the result block once, in its mapping step; write it out here so
            # the text can go in front of it.
            whole = [blocks[event.pop("block_seq")], *(event.get("content") or [])]
            event["content"] = [{"type": "text", "text": "Here:"}, *whole]
        if event["kind"] == "request":  # the parts shift by one inside the edited messages
            for ref in event["tail"]:
                if ref["role"] == "user" and len(ref["parts"]) == 1 and ref["parts"][0][1] == 0:
                    ref["parts"] = [[ref["parts"][0][0], 0], [ref["parts"][0][0], 1]]

    trace = _rewrite(MAIN_RECORDING, tmp_path / "edited.trace.jsonl", text_first)
    findings = run_doctor(TraceReader(trace))
    # The blocks are well formed; their order breaks the API's rule (results first).
    assert {f.rule for f in findings} == {"api-invariants"}
    assert any(
        "`tool_result` block(s) at the beginning of this message" in f.message for f in findings
    )


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        (
            {"type": "tool_result", "tool_use_id": "t", "content": "", "is_error": True},
            "is_error is set but the content carries no error text",
        ),
        (
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "content": "<tool_use_error>no</tool_use_error>",
            },
            "the content is an error (<tool_use_error>) but is_error is not set",
        ),
        (
            {"type": "tool_result", "tool_use_id": "t", "content": {"x": 1}},
            "its content is a dict, not a string or a list of blocks",
        ),
        ({"type": "tool_result", "tool_use_id": 7, "content": "x"}, "its tool_use_id is 7"),
        (
            {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": "no"},
            "is_error is 'no', not true or false",
        ),
        ({"type": "text", "text": "x"}, "its type is 'text', not 'tool_result'"),
    ],
)
def test_block_problems(block: dict[str, Any], problem: str) -> None:
    assert any(p.startswith(problem) for p in block_problems(block)), block_problems(block)


def test_a_good_result_has_no_problems() -> None:
    assert (
        block_problems(
            {
                "type": "tool_result",
                "tool_use_id": "t",
                "is_error": True,
                "content": "Exit code 2\nboom",
            }
        )
        == []
    )
    assert (
        block_problems(
            {"type": "tool_result", "tool_use_id": "t", "content": "Exit code is printed below"}
        )
        == []
    )


def test_a_result_needs_only_type_and_tool_use_id() -> None:
    """ToolResultBlockParam requires type and tool_use_id; content and is_error are optional."""
    from typing import Required, get_origin, get_type_hints

    from anthropic.types import ToolResultBlockParam

    hints = get_type_hints(ToolResultBlockParam, include_extras=True)
    required = {name for name, hint in hints.items() if get_origin(hint) is Required}
    assert required == {"type", "tool_use_id"}
    assert {"content", "is_error"} <= set(hints) - required
    assert block_problems({"type": "tool_result", "tool_use_id": "t"}) == []
    assert block_problems({"type": "tool_result", "content": "x"}) == ["it has no tool_use_id"]


def test_requests_are_rebuilt_as_sent() -> None:
    events = list(TraceReader(MAIN_RECORDING))
    facts = TraceFacts.build(events)
    assert [list(r.wire) for r in facts.requests] == [
        r.body["messages"] for r in rebuild_requests(events)
    ]


def test_steps_are_numbered_as_show_numbers_them() -> None:
    facts = TraceFacts.build(TraceReader(MAIN_RECORDING))
    shown = list(show_lines(TraceReader(MAIN_RECORDING)))
    assert max(facts.steps) == len(shown)


def test_hints_come_from_the_guide() -> None:
    from tracer.chapter.guide import load_guide
    from tracer.doctor.hints import FALLBACK, hint_for

    guide = load_guide()
    for rule in RULES:
        entry = guide.rule(rule)
        expected = (
            dict(FALLBACK[rule])
            if entry is None
            else {"zh": entry.check["zh"], "en": entry.check["en"]}
        )
        assert hint_for(rule) == expected
        assert expected["zh"] and expected["en"]
