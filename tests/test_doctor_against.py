"""Wire against transcript, the pure comparison (:mod:`tracer.doctor.against`): what a
transcript cannot know is named and counted, never a finding; every other difference is one
finding, at its request and message."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from tracer.doctor import against
from tracer.doctor.against import compare_requests
from tracer.doctor.against_command import report_lines
from tracer.doctor.against_findings import AGAINST_JSON_SCHEMA
from tracer.text.cjk import zh_problems

REMINDER = "<system-reminder>\nToday's date is 2026-12-06.\n</system-reminder>"
MARK = {"type": "ephemeral"}
CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt", "is_error": False}


def rebuilt() -> list[dict[str, Any]]:
    """Two requests as the import rebuilds them: the prompt, a call, its result."""
    first = {"model": "m", "messages": [{"role": "user", "content": "List the files."}]}
    second = copy.deepcopy(first)
    second["messages"] += [
        {"role": "assistant", "content": [{"type": "text", "text": "Listing."}, CALL]},
        {"role": "user", "content": [RESULT]},
    ]
    return [first, second]


def sent() -> list[dict[str, Any]]:
    """The same two requests as Claude Code sends them: the system prompt, the tools, the
    reminders (a block of their own, and one trailing a result) and the moving marker."""
    extra = {"system": [{"type": "text", "text": "You are..."}], "tools": [], "max_tokens": 9}
    prompt = {"type": "text", "text": "List the files."}
    marked = prompt | {"cache_control": MARK}
    first = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": REMINDER}, marked]}],
        **extra,
    }
    result = RESULT | {"content": f"a.txt\n\n{REMINDER}", "cache_control": MARK}
    second = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": REMINDER}, prompt]},
            {"role": "assistant", "content": [{"type": "text", "text": "Listing."}, CALL]},
            {"role": "user", "content": [result]},
            {"role": "user", "content": [{"type": "text", "text": REMINDER}]},
        ],
        **extra,
    }
    return [first, second]


def test_every_kind_is_in_the_json_schema() -> None:
    """The schema's list of kinds is the module's: each kind a test here produces is listed."""
    source = Path(against.__file__).read_text(encoding="utf-8")
    made = set(re.findall(r'difference\(\s*"([a-z-]+)"', source))
    listed = AGAINST_JSON_SCHEMA["properties"]["differences"]["items"]["properties"]["kind"]
    assert made == set(listed["enum"])


def kinds(found: Any) -> list[tuple[str, int, int | None, int | None, int | None]]:
    return [
        (d.kind, d.request, d.message_index, d.rebuilt_index, d.block_index)
        for d in found.differences
    ]


def test_what_a_transcript_cannot_know_is_named_and_counted_not_a_finding() -> None:
    found = compare_requests(rebuilt(), sent())
    assert found.differences == []
    counted = {u.what: u.count for u in found.unknowable}
    # Two reminder blocks, one trailing a result, one message of nothing else; two markers.
    assert counted == {"system": 2, "tools": 2, "params": 2, "reminders": 4, "cache_control": 2}
    params = next(u for u in found.unknowable if u.what == "params")
    assert "max_tokens" in params.message and "max_tokens" in params.message_zh


def test_the_same_requests_have_nothing_to_name() -> None:
    found = compare_requests(rebuilt(), rebuilt())
    assert (found.differences, found.unknowable) == ([], [])


def test_a_missing_message_is_one_finding_at_its_wire_index() -> None:
    built = rebuilt()
    del built[1]["messages"][2]  # the result never made it into the rebuild
    assert kinds(compare_requests(built, sent())) == [("missing-message", 2, 2, None, None)]


def test_an_extra_message_is_found_at_its_index_in_the_rebuild() -> None:
    built = rebuilt()
    built[1]["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "?"}]})
    assert kinds(compare_requests(built, sent())) == [("extra-message", 2, None, 3, None)]


def test_a_block_that_differs_names_its_request_message_and_block() -> None:
    built = rebuilt()
    built[1]["messages"][2]["content"][0] = RESULT | {"content": "b.txt"}
    found = compare_requests(built, sent())
    assert kinds(found) == [("block-differs", 2, 2, 2, 0)]
    assert "a.txt" in found.differences[0].message and "b.txt" in found.differences[0].message


def test_blocks_in_another_order_and_a_moved_message() -> None:
    built = rebuilt()
    built[1]["messages"][1]["content"].reverse()
    assert kinds(compare_requests(built, sent())) == [("block-order", 2, 1, 1, None)]
    built = rebuilt()
    messages = built[1]["messages"]
    messages[1], messages[2] = messages[2], messages[1]
    assert [k[0] for k in kinds(compare_requests(built, sent()))] == ["message-moved"]


def test_a_missing_block_extra_block_and_wrong_role() -> None:
    built = rebuilt()
    built[1]["messages"][1]["content"].pop(0)
    assert kinds(compare_requests(built, sent())) == [("missing-block", 2, 1, 1, 0)]
    built = rebuilt()
    built[1]["messages"][1]["content"].append({"type": "text", "text": "more"})
    assert kinds(compare_requests(built, sent())) == [("extra-block", 2, 1, 1, 2)]
    built = rebuilt()
    built[1]["messages"][1]["role"] = "user"
    assert kinds(compare_requests(built, sent())) == [("role-differs", 2, 1, 1, None)]


def test_a_missing_or_extra_request_and_a_parameter_both_sides_hold() -> None:
    assert kinds(compare_requests(rebuilt()[:1], sent())) == [
        ("missing-request", 2, None, None, None)
    ]
    assert kinds(compare_requests(rebuilt(), sent()[:1])) == [
        ("extra-request", 2, None, None, None)
    ]
    built = rebuilt()
    built[0]["model"] = "other"
    assert kinds(compare_requests(built, sent())) == [("param-differs", 1, None, None, None)]


def test_a_reminder_the_wire_lacks_is_not_invented_as_a_difference_the_other_way() -> None:
    """Reminders are out of the comparison on both sides; the wire's are the ones counted."""
    built = rebuilt()
    built[1]["messages"][0]["content"] = [{"type": "text", "text": REMINDER + "\nList the files."}]
    found = compare_requests(built, sent())
    assert found.differences == []
    assert {u.what: u.count for u in found.unknowable}["reminders"] == 4


def test_the_report_in_both_languages() -> None:
    built = rebuilt()
    del built[1]["messages"][2]
    found = compare_requests(built, sent())
    en = report_lines(found, Path("t.trace.jsonl"), Path("w.trace.jsonl"), "en")
    zh = report_lines(found, Path("t.trace.jsonl"), Path("w.trace.jsonl"), "zh")
    assert en[-1] == "t.trace.jsonl: 1 difference from the requests sent"
    assert "request 2, message 2: sent but not rebuilt" in "\n".join(en)
    assert "  - the system prompt, in 2 requests" in en
    assert zh[-1] == "t.trace.jsonl：与发出的请求有1处不同"
    assert "第2次请求的第2条消息：发出了，重建里没有" in "\n".join(zh)
    for line in zh + [d.message_zh for d in found.differences]:
        assert zh_problems(line) == [], line
    agreed = report_lines(compare_requests(rebuilt(), sent()), Path("t"), Path("w"), "zh")
    assert agreed[-1] == "t：与发出的请求一致"


def test_requests_are_paired_by_their_answers_ids_when_both_sides_have_them() -> None:
    """A resumed session: the transcript holds two earlier requests this wire never carried."""
    earlier = [{"model": "m", "messages": [{"role": "user", "content": "Before."}]}] * 2
    found = compare_requests(
        earlier + rebuilt(), sent(), rebuilt_answers=["a", "b", "c", "d"], wire_answers=["c", "d"]
    )
    assert found.differences == []
    assert {u.what: u.count for u in found.unknowable}["earlier"] == 2
    # Without the ids, in order: the same files give differences, not a name.
    assert compare_requests(earlier + rebuilt(), sent()).differences
    # An answer the rebuild does not have is a missing request; unpaired after the first pair,
    # extra (numbered as rebuilt).
    found = compare_requests(
        rebuilt() + earlier[:1], sent(), rebuilt_answers=["c", "d", "e"], wire_answers=["c", "x"]
    )
    assert [k[:2] for k in kinds(found)] == [
        ("missing-request", 2),
        ("extra-request", 2),
        ("extra-request", 3),
    ]
    assert "earlier" not in {u.what for u in found.unknowable}
