"""The normalization cache's pending cut: the end of the last list, kept only when the next list
goes on with an assistant message that reaches the API (otherwise the last user message could
still merge with what follows)."""

from __future__ import annotations

from tracer.importers.normal_cache import NormalCache
from tracer.model.api_messages import normalize_messages_for_api
from tracer.model.internal_messages import Message


def _user(uuid: str, content: object) -> Message:
    return Message(type="user", uuid=uuid, content=content)  # type: ignore[arg-type]


def _assistant(uuid: str, message_id: str, blocks: list, origin: str = "prompt") -> Message:
    return Message(
        type="assistant", uuid=uuid, content=blocks, message_id=message_id, origin=origin
    )


def _start() -> list[Message]:
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    return [
        _user("u1", "read it"),
        _assistant("a1", "m1", [use]),
        _user("u2", [result]),
        _user("u3", "and then?"),
    ]


def _same(messages: list[Message], cache: NormalCache) -> list:
    fast = cache.normalize(messages)
    full = normalize_messages_for_api(messages)
    assert [(a.role, a.parts) for a in fast] == [(a.role, a.parts) for a in full]
    return fast


def test_an_answer_after_the_tool_results_keeps_their_api_message() -> None:
    cache = NormalCache()
    first = _start()
    before = _same(first, cache)
    after = _same([*first, _assistant("a2", "m2", [{"type": "text", "text": "done"}])], cache)
    assert after[-2] is before[-1]  # the user message was not normalized again


def test_a_blank_or_synthetic_assistant_does_not_close_the_user_message() -> None:
    for next_one in (
        _assistant("a2", "m2", [{"type": "text", "text": "  \n"}]),
        _assistant("a2", "m2", [{"type": "text", "text": "API error"}], origin="synthetic"),
    ):
        cache = NormalCache()
        first = _start()
        before = _same(first, cache)
        after = _same([*first, next_one, _user("u4", "still there?")], cache)
        # The new user text merged into the last user message: a new object, one part longer.
        assert after[-1] is not before[-1]
        assert after[-1].parts == [*before[-1].parts, ("u4", None)]


def test_merged_user_messages_put_every_tool_result_first_in_order() -> None:
    r1 = {"type": "tool_result", "tool_use_id": "t1", "content": "one"}
    r2 = {"type": "tool_result", "tool_use_id": "t2", "content": "two"}
    note = {"type": "text", "text": "a note"}
    messages = [
        _user("u1", [note, r1]),  # alone, its blocks would keep their order
        _user("u2", "plain text"),
        _user("u3", [r2]),
    ]
    (api,) = normalize_messages_for_api(messages)
    # Tool results first, in the order they came; then the rest, in the order it came.
    assert api.parts == [("u1", 1), ("u3", 0), ("u1", 0), ("u2", None)]
    (alone,) = normalize_messages_for_api(messages[:1])
    assert alone.parts == [("u1", 0), ("u1", 1)]


def test_no_cut_before_a_same_id_piece_that_merges_back() -> None:
    # An empty user message sends nothing, so the next piece of m1 joins a1's API message:
    # cutting after a1 would have left it out.
    cache = NormalCache()
    text = {"type": "text", "text": "more"}
    messages = [
        _user("u1", "go"),
        _assistant("a1", "m1", [{"type": "text", "text": "first"}]),
        _user("u2", []),
        _assistant("a2", "m1", [text]),
        _user("u3", "next"),
    ]
    _same(messages[:3], cache)
    after = _same(messages, cache)
    assert after[1].parts == [("a1", 0), ("a2", 0)]


def test_a_list_whose_normalized_messages_were_replaced_is_not_taken_as_the_last_one() -> None:
    # The first and last messages are the same objects, the tool result between them is not:
    # the pending cut would keep the API message of the result that is no longer there.
    cache = NormalCache()
    first = _start()
    _same(first, cache)
    other = {"type": "tool_result", "tool_use_id": "t1", "content": "changed"}
    replaced = [*first[:2], _user("u2b", [other]), first[3]]
    after = _same([*replaced, _assistant("a2", "m2", [{"type": "text", "text": "done"}])], cache)
    assert after[2].parts[0] == ("u2b", 0)
