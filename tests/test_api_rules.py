"""The offline copy of the Messages API's request rules, and the 400 it makes the transport send.

Every expected text below is the API's own wording as users reported it; the checks prove that a
well-formed conversation (every request of the main walk) passes, that each broken shape gets its
sentence with the right ``messages.N.content.M`` position, and that a fault scenario played with
``validator=validate_request`` ends, through the real SDK, with ``model_error`` and a valid trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tracer.agent.api_rules import find_problems, validate_request
from tracer.files.paths import MAIN_RECORDING
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

PROMPT = {"role": "user", "content": "What changed?"}


def use(tool_id: str, name: str = "Bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"command": "git diff"}}


def result(tool_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def asks(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "Looking."}, *(use(i) for i in ids)],
    }


def answers(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": list(messages)}


def test_every_request_of_the_main_walk_is_accepted() -> None:
    bodies = [r.body for r in rebuild_requests(TraceReader(MAIN_RECORDING))]
    assert len(bodies) >= 3
    assert [validate_request(b) for b in bodies] == [None] * len(bodies)


def test_a_final_assistant_message_without_tool_use_is_a_prefill() -> None:
    assert validate_request(body(PROMPT, {"role": "assistant", "content": "Sure,"})) is None


def test_tool_use_without_result_in_the_next_message() -> None:
    text = validate_request(body(PROMPT, asks("toolu_a", "toolu_b"), answers(result("toolu_b"))))
    assert text == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks "
        "immediately after: toolu_a. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message."
    )


def test_tool_use_left_last_or_followed_by_assistant_is_unanswered() -> None:
    last = validate_request(body(PROMPT, asks("toolu_a", "toolu_b")))
    assert last is not None
    assert last.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks "
        "immediately after: toolu_a, toolu_b."
    )


def test_unexpected_tool_use_id_names_the_block() -> None:
    text = validate_request(
        body(PROMPT, asks("toolu_a"), answers(result("toolu_a"), result("toolu_zzz")))
    )
    assert text == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` "
        "blocks: toolu_zzz. Each `tool_result` block must have a corresponding "
        "`tool_use` block in the previous message."
    )


def test_a_wrong_id_is_reported_as_unexpected_before_the_unanswered_call() -> None:
    problems = find_problems(body(PROMPT, asks("toolu_a"), answers(result("toolu_b")))["messages"])
    assert [p.code for p in problems] == ["unexpected_tool_use_id", "tool_use_without_result"]
    assert problems[0].ids == ("toolu_b",) and problems[1].ids == ("toolu_a",)


def test_answering_one_call_twice_is_unexpected() -> None:
    text = validate_request(
        body(PROMPT, asks("toolu_a"), answers(result("toolu_a"), result("toolu_a")))
    )
    assert text is not None and text.startswith("messages.2.content.1: unexpected `tool_use_id`")


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "tool_result", "content": "ok"},
            "messages.2.content.0.tool_result.tool_use_id: Field required",
        ),
        ({"tool_use_id": "toolu_a", "content": "ok"}, "messages.2.content.0.type: Field required"),
        (
            result("toolu_a", {"lines": 3}),
            "messages.2.content.0.tool_result.content: Input should be a valid string",
        ),
        (
            result(""),
            "messages.2.content.0.tool_result.tool_use_id: String should match pattern "
            "'^[a-zA-Z0-9_-]+$'",
        ),
        (
            result("toolu_a", is_error="yes"),
            "messages.2.content.0.tool_result.is_error: Input should be a valid boolean",
        ),
    ],
    ids=["no-tool_use_id", "no-type", "content-object", "empty-id", "is_error-string"],
)
def test_field_problems_come_first_with_their_path(block: dict[str, Any], expected: str) -> None:
    assert validate_request(body(PROMPT, asks("toolu_a"), answers(block))) == expected


def test_tool_use_needs_its_id() -> None:
    broken = {"role": "assistant", "content": [{"type": "tool_use", "name": "Bash", "input": {}}]}
    expected = "messages.1.content.0.tool_use.id: Field required"
    assert validate_request(body(PROMPT, broken)) == expected


def test_the_first_message_must_be_the_users() -> None:
    text = validate_request(body({"role": "assistant", "content": "Hi"}, PROMPT))
    assert text == 'messages: first message must use the "user" role'


def test_the_pinned_sdk_says_consecutive_turns_are_combined() -> None:
    """The reason there is no "roles must alternate" rule: the SDK documents the opposite."""
    import inspect

    from anthropic.resources.messages import messages as sdk_messages

    doc = " ".join(inspect.getsource(sdk_messages).split())
    assert (
        "Consecutive `user` or `assistant` turns in your request will be combined into a "
        "single turn." in doc
    )


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_consecutive_same_role_messages_are_combined_not_refused(role: str) -> None:
    messages = [
        PROMPT,
        {"role": "assistant", "content": "A"},
        {"role": role, "content": "B"},
        {"role": role, "content": "C"},
    ]
    assert validate_request(body(*messages)) is None
    assert find_problems(messages) == []
    assert all(p.code != "roles" for p in find_problems(messages, stop_at_schema=False))


def test_results_split_over_consecutive_user_messages_answer_the_combined_turn() -> None:
    # Claude Code keeps one user message per result; the API combines them into one turn.
    assert (
        validate_request(
            body(
                PROMPT,
                asks("toolu_a", "toolu_b"),
                answers(result("toolu_a")),
                answers(result("toolu_b")),
            )
        )
        is None
    )


def test_a_tool_use_in_the_first_of_two_assistant_messages_is_answered_after_both() -> None:
    split = [PROMPT, asks("toolu_a"), {"role": "assistant", "content": "More."}]
    assert validate_request(body(*split, answers(result("toolu_a")))) is None
    unanswered = validate_request(body(*split, {"role": "user", "content": "go on"}))
    assert unanswered is not None and unanswered.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_a."
    )


def test_text_in_an_earlier_user_message_comes_before_the_results_of_the_combined_turn() -> None:
    text = validate_request(
        body(
            PROMPT, asks("toolu_a"), {"role": "user", "content": "note"}, answers(result("toolu_a"))
        )
    )
    assert text is not None and text.startswith(
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message."
    )


def test_tool_use_ids_must_be_unique() -> None:
    text = validate_request(
        body(
            PROMPT,
            asks("toolu_a"),
            answers(result("toolu_a")),
            asks("toolu_a"),
            answers(result("toolu_a")),
        )
    )
    assert text == "messages.3.content.1: `tool_use` ids must be unique"


def test_results_must_open_the_message_that_answers() -> None:
    text = validate_request(
        body(PROMPT, asks("toolu_a"), answers({"type": "text", "text": "here:"}, result("toolu_a")))
    )
    assert text == (
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this "
        "message. Messages following `tool_use` blocks must begin with a matching "
        "number of `tool_result` blocks."
    )


def test_feedback_text_after_the_results_is_fine() -> None:
    assert (
        validate_request(
            body(
                PROMPT,
                asks("toolu_a"),
                answers(result("toolu_a"), {"type": "text", "text": "Approved; keep it short."}),
            )
        )
        is None
    )


def test_empty_content_and_empty_text() -> None:
    assert validate_request(
        body(PROMPT, {"role": "assistant", "content": []}, {"role": "user", "content": "go"})
    ) == (
        "messages.1: all messages must have non-empty content except for the optional final "
        "assistant message"
    )
    assert (
        validate_request(body({"role": "user", "content": [{"type": "text", "text": ""}]}))
        == "messages: text content blocks must be non-empty"
    )
    assert (
        validate_request(body({"role": "user", "content": [{"type": "text", "text": "  "}]}))
        == "messages: text content blocks must contain non-whitespace text"
    )


def test_a_body_without_messages() -> None:
    assert validate_request({"model": "m"}) == "messages: Field required"


def test_start_checks_only_the_new_messages_and_their_join() -> None:
    messages = [
        {"role": "assistant", "content": "old problem"},
        PROMPT,
        asks("toolu_a"),
        answers(result("toolu_b")),
    ]
    assert {p.code for p in find_problems(messages)} >= {"first_not_user"}
    windowed = find_problems(messages, start=3)
    assert {p.code for p in windowed} == {"unexpected_tool_use_id", "tool_use_without_result"}


def test_a_refused_request_ends_the_session_with_model_error(record: Callable[..., Any]) -> None:
    from tracer.trace.schema import validate_trace

    rec = record(
        {
            # is_error that is no boolean: a field error the pairing patch does not touch
            "faults": {"malform_block": {"toolu_01bad": {"set": {"is_error": "yes"}}}},
            "workspace": {"files": {"a.txt": "alpha\n"}},
            "permissions": {"allow": ["Read"]},
            "responses": [
                {
                    "text": "Reading.",
                    "tool_use": [
                        {"id": "toolu_01bad", "name": "Read", "input": {"file_path": "a.txt"}},
                    ],
                },
                {"text": "never reached"},
            ],
        },
        validator=validate_request,
    )
    end = rec.terminal
    assert end.reason == "model_error"
    expected = validate_request(rec.requests()[-1])
    assert expected.startswith("messages.2.content.0.tool_result.is_error: Input should be")
    assert end.error == f"400 invalid_request_error: {expected}"
    refused = [a for a in rec.of("http_attempt") if a.status == 400]
    assert len(refused) == 1, "a 400 is final: the SDK must not retry it (x-should-retry: false)"
    assert len(rec.of("response")) == 1
    count, problems, _ = validate_trace(rec.path)
    assert problems == [] and count == len(rec.events)


DROPPED = {
    "faults": {"drop_tool_result": ["toolu_01drop"]},
    "workspace": {"files": {"a.txt": "alpha\n"}},
    "permissions": {"allow": ["Read"]},
    "responses": [
        {
            "text": "Reading.",
            "tool_use": [
                {"id": "toolu_01keep", "name": "Read", "input": {"file_path": "a.txt"}},
                {"id": "toolu_01drop", "name": "Read", "input": {"file_path": "a.txt"}},
            ],
        },
        {"text": "One read came back; the other is missing."},
    ],
}


def test_a_dropped_result_is_patched_as_claude_code_does_and_the_session_goes_on(
    record: Callable[..., Any],
) -> None:
    """2.1.88's ensureToolResultPairing answers the unanswered call with a synthetic error."""
    from tracer.model.internal_messages import MISSING_RESULT_MESSAGE

    rec = record(DROPPED, validator=validate_request)
    assert rec.terminal.reason == "completed"
    assert not [a for a in rec.of("http_attempt") if a.status == 400]
    sent = rec.requests()[-1]["messages"]
    assert sent[2]["content"][0] == {  # first in the user message, as messages.ts puts it
        "type": "tool_result",
        "content": MISSING_RESULT_MESSAGE,
        "is_error": True,
        "tool_use_id": "toolu_01drop",
    }
    assert sent[2]["content"][1]["tool_use_id"] == "toolu_01keep"
    assert validate_request(rec.requests()[-1]) is None
    (patched,) = [r for r in rec.of("request") if r.pairing]
    assert patched.pairing == {"added": ["toolu_01drop"], "stripped": []}


def test_send_unpatched_records_the_bare_apis_400_beside_the_patched_request(
    record: Callable[..., Any],
) -> None:
    scenario = {**DROPPED, "faults": {**DROPPED["faults"], "send_unpatched": True}}
    rec = record(scenario, validator=validate_request)
    assert rec.terminal.reason == "completed"
    requests = rec.of("request")
    assert len(requests) == 3  # the first turn, the unpatched one, the patched one
    (refused,) = [a for a in rec.of("http_attempt") if a.status == 400]
    assert refused.request_index == 2
    assert "`tool_use` ids were found without `tool_result` blocks immediately after: " in (
        refused.error or ""
    )
    assert requests[2].pairing == {
        "added": ["toolu_01drop"],
        "stripped": [],
        "unpatched_request": 2,
    }
    assert [r.request_index for r in rec.of("response")] == [1, 3]


def test_an_orphan_result_is_stripped_and_its_call_answered(record: Callable[..., Any]) -> None:
    rec = record(
        {
            "faults": {"rewrite_tool_use_id": {"toolu_01real": "toolu_01other"}},
            "workspace": {"files": {"a.txt": "alpha\n"}},
            "permissions": {"allow": ["Read"]},
            "responses": [
                {
                    "text": "Reading.",
                    "tool_use": [
                        {"id": "toolu_01real", "name": "Read", "input": {"file_path": "a.txt"}}
                    ],
                },
                {"text": "The result went missing."},
            ],
        },
        validator=validate_request,
    )
    assert rec.terminal.reason == "completed"
    sent = rec.requests()[-1]["messages"]
    ids = [b["tool_use_id"] for b in sent[2]["content"] if b["type"] == "tool_result"]
    assert ids == ["toolu_01real"]
    assert sent[2]["content"][0]["is_error"] is True
    (patched,) = [r for r in rec.of("request") if r.pairing]
    assert patched.pairing == {"added": ["toolu_01real"], "stripped": ["toolu_01other"]}
