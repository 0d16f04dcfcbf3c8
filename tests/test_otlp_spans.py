"""The OTLP spans say what the chapter says: each request whole, subagents nested, failures red.

Built from the bundled recordings and imported fixtures (no network): what each ``chat`` span
holds is compared with the request rebuilt byte for byte from the trace
(:mod:`tracer.trace.requests`), so the export cannot drift from what was really sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.export.otlp.document import Options, spans
from tracer.export.otlp.http import batches
from tracer.export.walk import walk
from tracer.files.paths import MAIN_RECORDING, RECORDINGS_DIR
from tracer.importers.claude_code.importer import import_claude_code
from tracer.trace.reader import TraceReader
from tracer.trace.requests import rebuild_requests

DATA = Path(__file__).parent / "data" / "claude-code"
SUBAGENT = DATA / "layout-2.0" / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
FAULT_400 = RECORDINGS_DIR / "faults" / "08-api-invariants.trace.jsonl"


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def _named(found: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [s for s in found if s["name"].startswith(prefix)]


def _imported(tmp_path: Path, source: Path = SUBAGENT) -> Path:
    out = tmp_path / "imported.trace.jsonl"
    import_claude_code(source, out)
    return out


def test_every_chat_span_holds_its_request_whole() -> None:
    found = spans(walk(MAIN_RECORDING), Options(max_content=0))
    requests = list(rebuild_requests(TraceReader(MAIN_RECORDING)))
    chats = _named(found, "chat ")
    assert len(chats) == len(requests) == 4
    for chat, request in zip(chats, requests, strict=True):
        sent = json.loads(_attrs(chat)["gen_ai.input.messages"])
        wire = request.body["messages"]
        assert [m["role"] for m in sent] == [m["role"] for m in wire]
        assert len(sent) == request.event.message_count
        system = json.loads(_attrs(chat)["gen_ai.system_instructions"])
        assert system == [{"type": "text", "content": request.body["system"]}]
        tools = json.loads(_attrs(chat)["gen_ai.tool.definitions"])
        assert [t["name"] for t in tools] == [t["name"] for t in request.body["tools"]]
        flat = _attrs(chat)
        # Phoenix's Messages view: the system prompt first, then every message sent.
        assert flat["llm.input_messages.0.message.role"] == "system"
        assert f"llm.input_messages.{len(sent)}.message.role" in flat

    # Request 2 resends the prompt, the first answer and the first result: the history grew.
    second = json.loads(_attrs(chats[1])["gen_ai.input.messages"])
    events = list(TraceReader(MAIN_RECORDING))
    first_call = next(e for e in events if e.kind == "tool_run")
    prompt = next(e for e in events if e.kind == "session_start").prompt
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert any(p.get("content") == prompt for p in second[0]["parts"])
    calls = [p for p in second[1]["parts"] if p["type"] == "tool_call"]
    answers = [p for p in second[2]["parts"] if p["type"] == "tool_call_response"]
    assert calls[0]["id"] == answers[0]["id"] == first_call.tool_use_id


def test_a_size_bound_keeps_the_prompt_and_the_newest_with_a_marker() -> None:
    found = spans(walk(MAIN_RECORDING), Options(max_content=1500))
    last = json.loads(_attrs(_named(found, "chat ")[-1])["gen_ai.input.messages"])
    whole = json.loads(
        _attrs(_named(spans(walk(MAIN_RECORDING), Options(max_content=0)), "chat ")[-1])[
            "gen_ai.input.messages"
        ]
    )
    assert len(last) < len(whole)
    assert last[0]["role"] == "user" and last[0]["parts"][0] == whole[0]["parts"][0]
    marker = last[1]["parts"][0]["content"]
    assert marker.startswith("[tracer left out ") and "--otlp-max-content" in marker
    assert last[-1]["role"] == whole[-1]["role"]
    assert len(json.dumps(last[2:])) <= 1500 * 2


def test_imports_send_content_only_when_asked(tmp_path: Path) -> None:
    trace = _imported(tmp_path)
    quiet = spans(walk(trace))
    keys = {k for s in quiet for k in _attrs(s)}
    assert not keys & {
        "gen_ai.input.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "input.value",
        "output.value",
    }
    loud = spans(walk(trace), Options(content=True))
    assert all("gen_ai.input.messages" in _attrs(s) for s in _named(loud, "chat "))
    assert all("gen_ai.tool.call.result" in _attrs(s) for s in _named(loud, "execute_tool "))


def test_a_subagent_hangs_under_its_task_call(tmp_path: Path) -> None:
    found = spans(walk(_imported(tmp_path)))
    by_id = {s["spanId"]: s for s in found}
    (root,) = [s for s in found if "parentSpanId" not in s]
    subagents = [s for s in _named(found, "invoke_agent ") if s is not root]
    assert subagents
    for sub in subagents:
        task = by_id[sub["parentSpanId"]]
        assert task["name"].startswith("execute_tool ")
        assert _attrs(task)["gen_ai.tool.name"] in ("Task", "Agent")
        assert by_id[task["parentSpanId"]] is root
        inner = [s for s in found if s.get("parentSpanId") == sub["spanId"]]
        assert _named(inner, "chat ") and _named(inner, "execute_tool ")
    # The main loop's own spans stay directly under the session.
    main_chats = [s for s in _named(found, "chat ") if s["parentSpanId"] == root["spanId"]]
    assert main_chats


def test_a_refused_request_gets_an_error_span_and_the_session_fails() -> None:
    found = spans(walk(FAULT_400))
    events = list(TraceReader(FAULT_400))
    requests = [e for e in events if e.kind == "request"]
    chats = _named(found, "chat ")
    assert len(chats) == len(requests) == 2  # one answered, one refused with 400
    failed = chats[-1]
    assert failed["status"]["code"] == 2 and "400" in failed["status"]["message"]
    assert _attrs(failed)["error.type"] == "invalid_request_error"
    assert _attrs(failed)["http.response.status_code"] == "400"
    assert chats[0]["status"] == {}
    (agent,) = [s for s in found if "parentSpanId" not in s]
    assert agent["status"]["code"] == 2 and _attrs(agent)["tracer.terminal_reason"] == "model_error"


def test_max_turns_and_interrupted_endings_are_marked_not_failed(tmp_path: Path) -> None:
    found = spans(walk(RECORDINGS_DIR / "05-max-turns.trace.jsonl"))
    agent = found[0]
    assert agent["status"] == {} and _attrs(agent)["tracer.max_turns_reached"] is True
    assert [e["name"] for e in agent["events"]] == ["terminal"]
    # The same session, as if the user had pressed Ctrl-C while the answer streamed.
    lines = (RECORDINGS_DIR / "09-no-tools.trace.jsonl").read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    assert last["kind"] == "terminal"
    last["reason"] = "aborted_streaming"
    cut = tmp_path / "interrupted.trace.jsonl"
    cut.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n", encoding="utf-8")
    agent = spans(walk(cut))[0]
    assert _attrs(agent)["tracer.interrupted"] is True
    assert _attrs(agent)["gen_ai.response.finish_reasons"] == {
        "values": [{"stringValue": "aborted_streaming"}]
    }


def _times(span: dict[str, Any]) -> list[int]:
    """A span's start, end and each event's time."""
    events = [int(e["timeUnixNano"]) for e in span["events"]]
    return [int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"]), *events]


def test_shift_to_now_keeps_the_shape_and_ends_now(tmp_path: Path) -> None:
    # It moved the session's start to now, so the rest of it lay in the future, and Phoenix's
    # "last 7 days" showed 1 of 434 spans. Now its last moment is now.
    trace = _imported(tmp_path)
    kept = spans(walk(trace))
    now = 1_900_000_000 * 10**9
    moved = spans(walk(trace), Options(shift_to_now=True, now_ns=now))
    assert max(t for s in moved for t in _times(s)) == now  # nothing in the future
    offset = now - max(t for s in kept for t in _times(s))
    assert [[t - offset for t in _times(s)] for s in moved] == [_times(s) for s in kept]
    assert int(moved[0]["startTimeUnixNano"]) < now  # the session took time: it began before
    out = tmp_path / "out.json"
    assert main(["export", str(trace), "-f", "otlp-json", "--shift-to-now", "-o", str(out)]) == 0
    first = json.loads(out.read_text(encoding="utf-8"))["resourceSpans"][0]["scopeSpans"][0]
    assert int(first["spans"][0]["startTimeUnixNano"]) > int(kept[0]["startTimeUnixNano"])
    # The OTLP flags belong to OTLP; a bad bound is one line, exit 2.
    assert main(["export", str(trace), "-f", "md", "--shift-to-now"]) == 2
    assert main(["export", str(trace), "-f", "otlp-json", "--otlp-max-content", "-1"]) == 2


@pytest.mark.parametrize("which", ["recording", "fault", "import"])
def test_every_child_lies_inside_its_parent(which: str, tmp_path: Path) -> None:
    trace = {"recording": MAIN_RECORDING, "fault": FAULT_400}.get(which) or _imported(tmp_path)
    found = spans(walk(trace))
    by_id = {s["spanId"]: s for s in found}
    for s in found:
        start, end = int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])
        assert start <= end
        assert all(start <= int(e["timeUnixNano"]) <= end for e in s["events"])
        if "parentSpanId" in s:
            parent = by_id[s["parentSpanId"]]
            assert int(parent["startTimeUnixNano"]) <= start
            assert end <= int(parent["endTimeUnixNano"])


def test_a_tool_that_starts_before_its_request_is_clamped(tmp_path: Path) -> None:
    lines = MAIN_RECORDING.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        if row.get("kind") == "tool_start":
            row["t"] = 0.0  # a clock that disagrees: before the request that asked for it
    skewed = tmp_path / "skewed.trace.jsonl"
    skewed.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    found = spans(walk(skewed))
    chats = _named(found, "chat ")
    for tool in _named(found, "execute_tool "):
        call = _attrs(tool)["gen_ai.tool.call.id"]
        asking = next(c for c in chats if call in _attrs(c).get("gen_ai.output.messages", ""))
        assert int(tool["startTimeUnixNano"]) >= int(asking["startTimeUnixNano"])


def test_the_conventions_are_finished() -> None:
    found = spans(walk(MAIN_RECORDING))
    events = list(TraceReader(MAIN_RECORDING))
    session = next(e for e in events if e.kind == "session_start")
    ids = {_attrs(s)["gen_ai.conversation.id"] for s in found}
    assert len(ids) == 1 and next(iter(ids))
    for chat in _named(found, "chat "):
        a = _attrs(chat)
        assert a["gen_ai.request.max_tokens"] == str(session.request_params["max_tokens"])
        assert a["server.address"] == "api.anthropic.com"
    descriptions = {t["name"]: t["description"] for t in session.request_params["tools"]}
    for tool in _named(found, "execute_tool "):
        a = _attrs(tool)
        assert a["gen_ai.tool.description"] == descriptions[a["gen_ai.tool.name"]]
        steps = tool["events"]
        assert [int(_attrs(e)["tracer.journey.step"]) for e in steps] == [1, 2, 3, 4]
        assert not any("tracer.station" in _attrs(e) for e in steps)
    last = [e for e in events if e.kind == "response"][-1]
    text = "\n".join(
        b["text"]
        for u in last.assistant_uuids
        for m in events
        if m.kind == "message" and m.uuid == u
        for b in m.content
        if b.get("type") == "text"
    )
    assert text and _attrs(found[0])["output.value"] == text


def test_batches_stay_under_a_byte_bound() -> None:
    big = [{"spanId": f"{i:016x}", "pad": "x" * 1000} for i in range(50)]
    payload = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": big}]}]}
    parts = batches(payload, size=512, max_bytes=10_000)
    sizes = [len(p["resourceSpans"][0]["scopeSpans"][0]["spans"]) for p in parts]
    assert sum(sizes) == 50 and max(sizes) <= 10 and len(parts) >= 5


@pytest.mark.parametrize("fast", [True, False])
def test_the_otlp_json_holds_the_values_the_stdlib_writes(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # orjson writes the export where it can; the stdlib writes what orjson refuses, and all of
    # it when orjson is missing. Either way the document reads back as the stdlib's does.
    import dataclasses
    import datetime

    from tracer.export.otlp import spans as otlp_spans

    if not fast:
        monkeypatch.setattr(otlp_spans, "_orjson", None)

    @dataclasses.dataclass
    class Odd:
        n: int

    values: list[Any] = [
        {"text": '中文 \n\t\x01\x7f \u2028 "q" \\', "n": [1, -2, 0.5, 3e300, True, None]},
        {"big": 2**70},  # beyond 64 bits: the stdlib's way, exact
        {"lone": "\ud800"},  # a lone surrogate: the stdlib's way
        {"odd": Odd(3), "when": datetime.datetime(2026, 12, 1, 12, 0)},  # made str, as json's
    ]
    for value in values:
        stdlib = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        text = otlp_spans.to_json(value)
        assert text == stdlib
    # Only a float's spelling may differ (orjson writes 1e-6): the value is the same.
    small = {"n": [1e-06, 2.5e-08]}
    assert json.loads(otlp_spans.to_json(small)) == small
    assert otlp_spans.to_json({"big": 2**70}) == '{"big":1180591620717411303424}'
    assert json.loads(otlp_spans.to_json({"odd": Odd(3)}))["odd"].endswith("Odd(n=3)")
