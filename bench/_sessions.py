"""Long scripted sessions for the benchmarks, built in code rather than YAML.

Each turn the scripted model says one sentence and asks for one cheap tool call; the last
response just answers. The session runs through the same pieces a recording uses (the real
``anthropic`` SDK, the :class:`~tracer.agent.scripted.ScriptedTransport`, the loop, the tools),
so what the benchmarks measure is what ``tracer record`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracer.agent.scripted import ScriptedResponse, ScriptedTransport
from tracer.agent.session import Session
from tracer.chapter.scenario import Scenario, Workspace
from tracer.record.workspace import SessionDirs, prepare_workspace
from tracer.trace.events import Event

NOTES = "".join(f"note {i}: the loop resends the whole history every turn\n" for i in range(12))


def scripted_scenario(turns: int, tool: str = "Read") -> Scenario:
    """A scenario of ``turns`` tool-using turns plus a final answer.

    ``tool="Read"`` reads a 12-line file (a small, realistic result); ``tool="Glob"`` matches
    nothing in an empty folder (an instant tool with a tiny result).
    """
    tool_input = {"file_path": "notes.txt"} if tool == "Read" else {"pattern": "empty/*.none"}
    responses = [
        ScriptedResponse(
            [
                {"type": "text", "text": f"Step {i + 1}: let me look once more."},
                {
                    "type": "tool_use",
                    "id": f"toolu_bench{i:06d}",
                    "name": tool,
                    "input": tool_input,
                },
            ]
        )
        for i in range(turns)
    ]
    responses.append(ScriptedResponse([{"type": "text", "text": "Done looking."}], "end_turn"))
    return Scenario(
        path=Path("bench.yaml"),
        name=f"bench-{turns}",
        title={"en": "bench"},
        prompt="Look at the notes, again and again.",
        responses=responses,
        workspace=Workspace(files={"notes.txt": NOTES, "empty/.keep": ""}),
        allow=[tool],
        tools=[tool],
    )


def run_session(scenario: Scenario, emit: Callable[[Event], Any]) -> Any:
    """Run a scenario's session in a throwaway workspace, sending every event to ``emit``."""
    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs)
        transport = ScriptedTransport(scenario.responses, seed=scenario.name)
        session = Session.for_scenario(scenario, dirs, transport=transport, max_turns=None)
        emit(session.start_event())
        return session.run(emit)
    finally:
        dirs.cleanup()


def api_history_bytes(events: list[Any]) -> int:
    """Bytes of the last request's ``messages``, encoded as the SDK encodes them."""
    from tracer.trace.requests import rebuild_requests

    requests = list(rebuild_requests(events))
    assert requests, "the session sent no request"
    return len(_dumps(requests[-1].body["messages"]))


def final_history_bytes(events: list[Any], reader: Any) -> int:
    """Bytes of the final history as the loop holds it: every message of ``state.messages``
    (uuid, type, API content, and for a tool result its raw ``tool_use_result`` and the uuid of
    the assistant message that asked), one JSON object each, as Claude Code keeps them in its
    transcript. What is sent to the API is only part of it (:func:`api_history_bytes`)."""
    total = 0
    for e in events:
        if e.kind != "message":
            continue
        obj: dict[str, Any] = {"uuid": e.uuid, "type": e.type}
        if e.type == "attachment":
            obj["attachment"] = e.attachment
        else:
            role = "assistant" if e.type == "assistant" else "user"
            obj["message"] = {"role": role, "content": e.content}
        raw = reader.tool_use_result(e)
        if raw is not None:
            obj["toolUseResult"] = raw
        if e.source_tool_assistant_uuid:
            obj["sourceToolAssistantUUID"] = e.source_tool_assistant_uuid
        total += len(_dumps(obj)) + 1
    return total


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
