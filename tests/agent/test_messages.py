"""Messages: the internal list versus the list the API is sent.

``normalize_messages_for_api`` is why the chapter's ``messages: 7`` is not the number of messages
a request holds: assistant pieces of one response merge back, consecutive user messages merge
(tool results first) and attachments become ``<system-reminder>`` text.
"""

from __future__ import annotations

from typing import Any

import pytest

from tracer.model.api_messages import materialize, normalize_messages_for_api
from tracer.model.internal_messages import (
    Message,
    UuidSource,
    content_length,
    create_assistant_messages,
    create_attachment_message,
    create_user_message,
)


def _sent(messages: list[Message]) -> list[dict[str, Any]]:
    api = normalize_messages_for_api(messages)
    return materialize(api, {m.uuid: m for m in messages})


def _tool_result(tool_use_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "content": text, "tool_use_id": tool_use_id}


def test_create_user_message_keeps_the_raw_output_beside_the_content() -> None:
    new = UuidSource("t")
    message = create_user_message(
        [_tool_result("a", "x")],
        new_uuid=new,
        tool_use_result={"stdout": "x\n"},
        source_tool_assistant_uuid="asst-1",
    )
    assert message.type == "user"
    assert message.tool_use_result == {"stdout": "x\n"}
    assert message.source_tool_assistant_uuid == "asst-1"
    assert message.has_tool_result()
    # tool_use_result is never sent: only role and content reach the API.
    assert _sent([message]) == [{"role": "user", "content": [_tool_result("a", "x")]}]


def test_seeded_uuids_are_reproducible() -> None:
    assert [UuidSource("s")() for _ in range(2)] == [UuidSource("s")()] * 2
    a, b = UuidSource("s"), UuidSource("s")
    assert [a(), a()] == [b(), b()]
    assert UuidSource()() != UuidSource()()


def test_same_id_assistant_pieces_merge_into_one_message() -> None:
    new = UuidSource("t")
    prompt = create_user_message("hi", new_uuid=new)
    blocks = [
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "text", "text": "let me look"},
        {"type": "tool_use", "id": "a", "name": "Read", "input": {}},
    ]
    pieces = create_assistant_messages("msg_1", blocks, new_uuid=new)
    assert len(pieces) == 3 and all(len(p.content) == 1 for p in pieces)
    sent = _sent([prompt, *pieces])
    assert sent == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": blocks}]


def test_different_responses_stay_apart() -> None:
    new = UuidSource("t")
    one = create_assistant_messages("msg_1", [{"type": "text", "text": "a"}], new_uuid=new)
    two = create_assistant_messages("msg_2", [{"type": "text", "text": "b"}], new_uuid=new)
    api = normalize_messages_for_api([create_user_message("q", new_uuid=new), *one, *two])
    assert [m.role for m in api] == ["user", "assistant", "assistant"]


def test_consecutive_user_messages_merge_with_tool_results_first() -> None:
    new = UuidSource("t")
    prompt = create_user_message("q", new_uuid=new)
    asked = create_assistant_messages(
        "msg_1",
        [
            {"type": "tool_use", "id": "a", "name": "Read", "input": {}},
            {"type": "tool_use", "id": "b", "name": "Read", "input": {}},
        ],
        new_uuid=new,
    )
    note = create_user_message("a note typed meanwhile", new_uuid=new)
    first = create_user_message([_tool_result("a", "1")], new_uuid=new)
    second = create_user_message(
        [_tool_result("b", "2"), {"type": "text", "text": "fb"}], new_uuid=new
    )
    sent = _sent([prompt, *asked, note, first, second])
    assert len(sent) == 3
    assert sent[2] == {
        "role": "user",
        "content": [
            _tool_result("a", "1"),
            _tool_result("b", "2"),
            {"type": "text", "text": "a note typed meanwhile"},
            {"type": "text", "text": "fb"},
        ],
    }


def test_attachments_become_system_reminders_before_the_prompt() -> None:
    new = UuidSource("t")
    prompt = create_user_message("fix the tests", new_uuid=new)
    skills = create_attachment_message(
        {"type": "skill_listing", "content": "Skills: none."}, new_uuid=new
    )
    agents = create_attachment_message(
        {"type": "agent_listing_delta", "content": "Agents: one."}, new_uuid=new
    )
    sent = _sent([prompt, skills, agents])
    assert sent == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>\nSkills: none.\n</system-reminder>"},
                {"type": "text", "text": "<system-reminder>\nAgents: one.\n</system-reminder>"},
                {"type": "text", "text": "fix the tests"},
            ],
        }
    ]


def test_max_turns_reached_sends_nothing() -> None:
    new = UuidSource("t")
    prompt = create_user_message("q", new_uuid=new)
    reached = create_attachment_message(
        {"type": "max_turns_reached", "maxTurns": 2, "turnCount": 3}, new_uuid=new
    )
    assert _sent([prompt, reached]) == [{"role": "user", "content": "q"}]


def test_content_length_follows_javascript() -> None:
    assert content_length("abc") == 3
    assert content_length("中文") == 2
    assert content_length("😀") == 2, "an astral character is two UTF-16 code units"
    assert content_length([{"type": "text", "text": "long text"}]) == len("[object Object]")
    assert content_length([{"type": "text"}, {"type": "image"}]) == len(
        "[object Object],[object Object]"
    )
    assert content_length(None) == len("undefined")
    assert content_length("") == 0
    assert content_length("é中😀x") == 5


def test_content_length_imports_no_codec() -> None:
    """A non-ASCII result is measured without importing a codec module (the UTF-16 that
    CPython encodes on its own, byte-order mark and all): that import cost every import of a
    session with such a result as much as measuring all its results."""
    import subprocess
    import sys

    code = (
        "import sys; from tracer.model.internal_messages import content_length; "
        "before = set(sys.modules); assert content_length('中文😀') == 4; "
        "print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_main_walk_requests_hold_fewer_messages_than_the_internal_list(main_walk: Any) -> None:
    sent = main_walk.of("request")
    assert [(r.internal_count, r.message_count) for r in sent] == [(3, 1), (7, 3), (11, 5), (15, 7)]
    first = main_walk.requests()[0]["messages"][0]["content"]
    assert [b["text"].startswith("<system-reminder>") for b in first] == [True, True, False]


# -- ensureToolResultPairing ---------------------------------------------------------------------


def _pairing(messages: list[Message]) -> tuple[list[dict[str, Any]], Any, list[Message]]:
    from tracer.model.internal_messages import NO_CONTENT_MESSAGE, synthetic_tool_result_block
    from tracer.model.pairing import ensure_tool_result_pairing

    new = UuidSource("pairing")
    by_uuid = {m.uuid: m for m in messages}
    made: list[Message] = []

    def synthetic(tool_use_id: str, assistant_uuid: str) -> Message:
        message = create_user_message(
            [synthetic_tool_result_block(tool_use_id)],
            new_uuid=new,
            source_tool_assistant_uuid=assistant_uuid,
            origin="synthetic",
        )
        by_uuid[message.uuid] = message
        made.append(message)
        return message

    def no_content() -> Message:
        message = create_user_message(
            NO_CONTENT_MESSAGE, new_uuid=new, is_meta=True, origin="synthetic"
        )
        by_uuid[message.uuid] = message
        made.append(message)
        return message

    api, repair = ensure_tool_result_pairing(
        normalize_messages_for_api(messages), by_uuid, synthetic, no_content
    )
    return materialize(api, by_uuid), repair, made


def _use(tool_use_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": "Bash", "input": {}}


def test_pairing_leaves_a_well_paired_request_alone() -> None:
    new = UuidSource("t")
    prompt = create_user_message("go", new_uuid=new)
    (asks,) = create_assistant_messages("msg_1", [_use("toolu_a")], new_uuid=new)
    answer = create_user_message([_tool_result("toolu_a", "ok")], new_uuid=new)
    sent, repair, made = _pairing([prompt, asks, answer])
    assert not repair.changed and made == []
    assert sent == _sent([prompt, asks, answer])


def test_pairing_answers_a_call_followed_by_another_assistant_message() -> None:
    from tracer.model.internal_messages import MISSING_RESULT_MESSAGE

    new = UuidSource("t")
    prompt = create_user_message("go", new_uuid=new)
    (asks,) = create_assistant_messages("msg_1", [_use("toolu_a")], new_uuid=new)
    (more,) = create_assistant_messages("msg_2", [{"type": "text", "text": "x"}], new_uuid=new)
    sent, repair, made = _pairing([prompt, asks, more])
    assert repair.added == ("toolu_a",) and len(made) == 1
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant"]
    assert sent[2]["content"][0]["content"] == MISSING_RESULT_MESSAGE


def test_pairing_sends_no_content_for_a_user_message_left_empty_by_stripping() -> None:
    # messages.ts: the assistant message must still be followed by a user message, so the
    # emptied one goes out as NO_CONTENT_MESSAGE rather than being dropped.
    new = UuidSource("t")
    prompt = create_user_message("go", new_uuid=new)
    (says,) = create_assistant_messages("msg_1", [{"type": "text", "text": "hi"}], new_uuid=new)
    orphan = create_user_message([_tool_result("toolu_zzz", "late")], new_uuid=new)
    sent, repair, made = _pairing([prompt, says, orphan])
    assert repair.stripped == ("toolu_zzz",) and repair.added == () and repair.no_content == 1
    assert sent[2] == {"role": "user", "content": "(no content)"}
    assert made[0].is_meta and repair.to_json()["no_content"] == 1


def test_pairing_puts_the_made_up_result_first() -> None:
    # messages.ts: [...syntheticBlocks, ...content], ahead of the real results too.
    new = UuidSource("t")
    prompt = create_user_message("go", new_uuid=new)
    asks = create_assistant_messages("msg_1", [_use("toolu_a"), _use("toolu_b")], new_uuid=new)
    answer = create_user_message(
        [_tool_result("toolu_a", "ok"), {"type": "text", "text": "note"}], new_uuid=new
    )
    sent, repair, _ = _pairing([prompt, *asks, answer])
    assert repair.added == ("toolu_b",)
    kinds = [(b["type"], b.get("tool_use_id")) for b in sent[2]["content"]]
    assert kinds == [("tool_result", "toolu_b"), ("tool_result", "toolu_a"), ("text", None)]


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_result", "content": "ok"},
        {"type": "tool_result", "tool_use_id": "", "content": "ok"},
    ],
)
def test_pairing_strips_a_result_without_an_id_and_answers_the_call(block: Any) -> None:
    # Fault 03: the block answers no call (its id is undefined), so 2.1.88 strips it and
    # answers the real call with the synthetic result, as for a wrong id.
    from tracer.model.internal_messages import MISSING_RESULT_MESSAGE

    new = UuidSource("t")
    prompt = create_user_message("go", new_uuid=new)
    (asks,) = create_assistant_messages("msg_1", [_use("toolu_a")], new_uuid=new)
    broken = create_user_message([block], new_uuid=new)
    sent, repair, made = _pairing([prompt, asks, broken])
    assert repair.stripped == ("",) and repair.added == ("toolu_a",) and len(made) == 1
    assert sent[2]["content"] == [
        {
            "type": "tool_result",
            "content": MISSING_RESULT_MESSAGE,
            "is_error": True,
            "tool_use_id": "toolu_a",
        }
    ]
